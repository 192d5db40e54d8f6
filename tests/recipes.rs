//! The README's "Recipes with jq", run exactly as written there (through `sh` and the real
//! `jq`) on a v0 sample and a v4 log, with the exact output each gives.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{fixture, samples};

/// The command lines of the README's "Recipes with jq" block, in order.
fn readme_recipes() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let section = readme
        .split("## Recipes with jq")
        .nth(1)
        .expect("a recipes section");
    let block = section
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a sh block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_owned)
        .collect()
}

/// Runs one recipe with `session.jsonl` standing for `log` and `logs/` for `dir`.
fn run(recipe: &str, log: &Path, dir: &Path) -> String {
    let bin = assert_cmd::cargo::cargo_bin("dsh-session");
    let bin_dir = bin.parent().expect("binary directory");
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .expect("PATH");
    let line = recipe
        .replace("session.jsonl", &log.display().to_string())
        .replace("logs/", &format!("{}/", dir.display()));
    let out = Command::new("sh")
        .arg("-c")
        .arg(&line)
        .env("PATH", path)
        .env_remove("NO_COLOR")
        .env("DSH_SESSION_INDEX", common::test_cache().join("index.db"))
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{line}: exit {:?}, stderr {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Whether `jq` is on PATH ([`common::require`]: a skip on a user's machine, a failure in CI).
fn jq_present() -> bool {
    common::have_program(
        "jq",
        "the README's jq recipes run with the real jq (`apt-get install jq`)",
    )
}

#[test]
fn every_readme_recipe_works_on_v0_and_v4() {
    if !jq_present() || !common::have_samples() {
        return;
    }
    let recipes = readme_recipes();
    assert_eq!(recipes.len(), 4, "{recipes:#?}");

    let v0: PathBuf = samples()
        .join("jsonl/examples__acp-agent__tests__snapshots__escalation-rejected__session.jsonl");
    let v4 = fixture("v4-tool-result-error.jsonl");

    // A tree with one valid v4 session and one corrupt v0 session, for the walk recipe.
    let tree = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(tree.path().join("a")).expect("mkdir");
    std::fs::create_dir_all(tree.path().join("b")).expect("mkdir");
    std::fs::copy(
        fixture("rules/H7-cwd-dot-relative.jsonl"),
        tree.path().join("a/session.jsonl"),
    )
    .expect("copy");
    std::fs::copy(&v4, tree.path().join("b/session.v4.jsonl")).expect("copy");

    let expected: [(&str, &str); 3] = [
        // the last assistant reply
        (
            "The user rejected the permission escalation, so this command cannot be run.\n",
            "The search failed: the network is unreachable.\n",
        ),
        // the call ids of results that reported an error
        ("[\"call_00_WB1vnPomi8yr6MlcFKTj7912\"]\n", "[\"call_1\"]\n"),
        // token totals per turn
        (
            "{\"turn\":1,\"input\":1578,\"output\":243}\n",
            "{\"turn\":1,\"input\":120,\"output\":11}\n",
        ),
    ];
    for (recipe, (want_v0, want_v4)) in recipes.iter().zip(expected) {
        assert_eq!(run(recipe, &v0, tree.path()), want_v0, "v0: {recipe}");
        assert_eq!(run(recipe, &v4, tree.path()), want_v4, "v4: {recipe}");
    }
    assert_eq!(
        run(&recipes[3], &v0, tree.path()),
        format!("{}/a/session.jsonl: H7\n", tree.path().display())
    );
}

/// Every `console` example of the README: the `$ ` command run through `sh` from the
/// crate root (with the binary under test on PATH) prints exactly the lines shown.
#[test]
fn every_readme_console_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let (mut checked, mut skipped) = (0, 0);
    for block in readme.split("```console\n").skip(1) {
        let block = block.split("```").next().expect("a closed block");
        let Some((command, expected)) = block.split_once('\n') else {
            continue;
        };
        let command = command
            .strip_prefix("$ ")
            .expect("a console block starts with $");
        if (command.contains(" | jq") && !jq_present())
            || (command.contains("../shared/samples") && !common::have_samples())
        {
            skipped += 1;
            continue;
        }
        let bin = assert_cmd::cargo::cargo_bin("dsh-session");
        let path = std::env::join_paths(
            std::iter::once(bin.parent().expect("bin dir").to_path_buf()).chain(
                std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
            ),
        )
        .expect("PATH");
        let out = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env("PATH", path)
            .env("NO_COLOR", "1")
            // `index`, `search`, `sessions ROOT`: this test binary's index, never the
            // user's cache.
            .env("DSH_SESSION_INDEX", common::test_cache().join("index.db"))
            .output()
            .expect("sh runs");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            expected,
            "README example `{command}`"
        );
        checked += 1;
    }
    assert!(
        checked + skipped >= 11,
        "only {checked} examples found ({skipped} skipped)"
    );
}
