//! `completions SHELL`: the clap_complete script, with bash's branch names mended and
//! elvish taught option values.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap_complete::Shell;

use super::{Cli, CompletionsArgs};

/// The name the scripts complete.
const BIN_NAME: &str = "dsh-session";

/// Prints the completion script for `args.shell`.
pub fn run(args: &CompletionsArgs, out: &mut dyn Write) -> Result<ExitCode> {
    out.write_all(script(args.shell).as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The completion script for `shell` as text. clap_complete panics when its writer fails,
/// so it writes to memory and [`run`] writes the result (a closed pipe then ends quietly
/// like every other command).
pub fn script(shell: Shell) -> String {
    let mut command = <Cli as clap::CommandFactory>::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BIN_NAME, &mut script);
    let script = String::from_utf8_lossy(&script).into_owned();
    match shell {
        Shell::Bash => mend_bash(&script, BIN_NAME),
        Shell::Elvish => add_elvish_values(&script, &command),
        _ => script,
    }
}

/// clap_complete 4.6.12 (clap-rs/clap#6421) names bash's states two ways for a binary name
/// with a hyphen: the loop over the words sets `cmd` to `dsh__session__subcmd__validate`
/// (hyphens in the binary name become `__`), but the `case "${cmd}"` arms that complete a
/// subcommand are labelled `dsh__subcmd__session__subcmd__validate` (hyphens become the
/// subcommand separator). No arm matched, so nothing after a subcommand completed. This
/// relabels those arms the way the loop spells them; a script without the mismatch (a
/// fixed clap_complete, or a name without a hyphen) comes back unchanged.
fn mend_bash(script: &str, bin_name: &str) -> String {
    const ARM_INDENT: &str = "        ";
    const CMD_SEP: &str = "__subcmd__";
    let wrong = bin_name.replace('-', CMD_SEP);
    let right = bin_name.replace('-', "__");
    let mut mended = String::with_capacity(script.len());
    for line in script.split_inclusive('\n') {
        let arm = line
            .strip_prefix(ARM_INDENT)
            .and_then(|rest| rest.strip_prefix(wrong.as_str()))
            .filter(|rest| rest.starts_with(CMD_SEP) || rest.starts_with(')'));
        match arm {
            Some(rest) if wrong != right => {
                mended.push_str(ARM_INDENT);
                mended.push_str(&right);
                mended.push_str(rest);
            }
            _ => mended.push_str(line),
        }
    }
    mended
}

/// An option that takes one of a fixed set of values.
struct ValueOption {
    /// The elvish script's key for the command path, e.g. `dsh-session;validate`.
    state: String,
    /// `--long` or `-s`.
    option: String,
    /// Each value with its help (empty when it has none).
    values: Vec<(String, String)>,
}

/// Every option of `command` and its subcommands that takes one of a fixed set of values.
/// `command` must be built (clap_complete's `generate` builds it), so global options
/// appear under every subcommand.
fn value_options(command: &clap::Command) -> Vec<ValueOption> {
    fn walk(command: &clap::Command, state: &str, found: &mut Vec<ValueOption>) {
        for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
            let values: Vec<(String, String)> = arg
                .get_possible_values()
                .iter()
                .filter(|v| !v.is_hide_set())
                .map(|v| {
                    let help = v.get_help().map(ToString::to_string).unwrap_or_default();
                    (v.get_name().to_owned(), help)
                })
                .collect();
            if values.is_empty() || !arg.get_action().takes_values() {
                continue;
            }
            let longs = arg.get_long().map(|l| format!("--{l}"));
            let shorts = arg.get_short().map(|s| format!("-{s}"));
            for option in longs.into_iter().chain(shorts) {
                found.push(ValueOption {
                    state: state.to_owned(),
                    option,
                    values: values.clone(),
                });
            }
        }
        for sub in command.get_subcommands() {
            walk(sub, &format!("{state};{}", sub.get_name()), found);
        }
    }
    let mut found = Vec::new();
    walk(command, BIN_NAME, &mut found);
    found
}

/// clap_complete's elvish script completes subcommands and options but never an option's
/// values: `dsh-session validate --format <TAB>` offered the options again. This puts a
/// table of the options that take fixed values in front of its last step, keyed
/// `STATE;OPTION` (the state is the subcommand path the script has worked out), and
/// offers those values when the word before the cursor is such an option. A script whose
/// last step is not the expected `$completions[$command]` line comes back unchanged.
fn add_elvish_values(script: &str, command: &clap::Command) -> String {
    const LAST_STEP: &str = "    $completions[$command]\n}\n";
    let Some(at) = script.rfind(LAST_STEP) else {
        return script.to_owned();
    };
    let quote = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let mut table = String::from("    var values = [\n");
    for ValueOption {
        state,
        option,
        values,
    } in value_options(command)
    {
        table.push_str(&format!(
            "        &{}= {{\n",
            quote(&format!("{state};{option}"))
        ));
        for (value, help) in values {
            table.push_str(&format!(
                "            cand {} {}\n",
                quote(&value),
                quote(&help)
            ));
        }
        table.push_str("        }\n");
    }
    table.push_str("    ]\n");
    table.push_str("    var key = $command';'$words[-2]\n");
    table.push_str("    if (has-key $values $key) {\n        $values[$key]\n    } else {\n");
    table.push_str("        $completions[$command]\n    }\n}\n");
    format!(
        "{}{table}{}",
        &script[..at],
        &script[at + LAST_STEP.len()..]
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arms_take_the_loops_spelling() {
        let arms = "    case \"${cmd}\" in\n        my__app)\n        my__subcmd__app__subcmd__run)\n        my__subcmd__app__subcmd__help__subcmd__run)\n    esac\n";
        assert_eq!(
            mend_bash(arms, "my-app"),
            "    case \"${cmd}\" in\n        my__app)\n        my__app__subcmd__run)\n        my__app__subcmd__help__subcmd__run)\n    esac\n"
        );
        // Two hyphens, and a name without one.
        assert_eq!(
            mend_bash("        a__subcmd__b__subcmd__c__subcmd__x)\n", "a-b-c"),
            "        a__b__c__subcmd__x)\n"
        );
        assert_eq!(mend_bash(arms, "plain"), arms);
    }

    #[test]
    fn elvish_offers_option_values() {
        let script = script(Shell::Elvish);
        let validate_format = "        &'dsh-session;validate;--format'= {
            cand 'text' 'Human-readable lines'
            cand 'json' 'One JSON array'
            cand 'jsonl' 'One JSON object per line'
            cand 'github' 'GitHub Actions workflow commands: `::error` for corrupt and refused logs, `::warning` for torn tails and warnings'
        }
";
        assert!(script.contains(validate_format), "{script}");
        assert!(script.contains("        &'dsh-session;--color'= {\n"));
        assert!(script.ends_with(
            "    var key = $command';'$words[-2]
    if (has-key $values $key) {
        $values[$key]
    } else {
        $completions[$command]
    }
}
"
        ));
        // Positional values (the SHELL of `completions`) have no option to key them.
        assert_eq!(script.matches("&'dsh-session;completions;").count(), 1);
        assert!(script.contains("&'dsh-session;completions;--color'= {"));
    }

    #[test]
    fn every_arm_is_a_state_the_loop_sets() {
        let script = script(Shell::Bash);
        let set: Vec<&str> = script
            .lines()
            .filter_map(|l| l.trim().strip_prefix("cmd=\"")?.strip_suffix('"'))
            .collect();
        let arms: Vec<&str> = script
            .lines()
            .filter_map(|l| l.strip_prefix("        ")?.strip_suffix(')'))
            .filter(|l| !l.starts_with(' '))
            .collect();
        // 24 subcommands and `help` with each of them, and the top level.
        assert_eq!(arms.len(), 49, "{arms:?}");
        for arm in arms {
            assert!(set.contains(&arm), "no word leads to the arm {arm}");
        }
    }
}
