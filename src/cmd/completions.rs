//! `completions SHELL`: the clap_complete script, with bash's branch names mended.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;
use clap_complete::Shell;

use crate::cli::{Cli, CompletionsArgs};

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
        assert_eq!(arms.len(), 27, "{arms:?}");
        for arm in arms {
            assert!(set.contains(&arm), "no word leads to the arm {arm}");
        }
    }
}
