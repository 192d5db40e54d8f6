# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_dsh_session_global_optspecs
    string join \n color= v/verbose dsh= platform= h/help V/version
end

function __fish_dsh_session_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_dsh_session_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_dsh_session_using_subcommand
    set -l cmd (__fish_dsh_session_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c dsh-session -n "__fish_dsh_session_needs_command" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_needs_command" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_needs_command" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_needs_command" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -s V -l version -d 'Print version'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "validate" -d 'Check logs the way DSH does on load; the exit code tells (CI gate)'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "surface" -d 'Print the surface: the ordered events whose messages the model sees'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "messages" -d 'Print the derived message history (deriveMessages), byte for byte as stored'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "repair" -d 'Repair a log after a crash exactly as DSH does on its next load'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "recover" -d 'Make new sessions DSH loads from a log it refuses, losing nothing it can keep'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "fork" -d 'Start a new session from an earlier point of a session: the history up to the end of the turn that holds SEQ'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "trim" -d 'Make a smaller copy of a session: tool outputs cut to a size, turns left out'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "provenance" -d 'Show where an event came from, what cites it, and what shadowed it'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "replacements" -d 'List every replace in log order: generation, range, shadowed seqs, surface lengths'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "show" -d 'Summarise a log: header, era, turns, steps, tool calls, tokens, times'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "stats" -d 'Report usage over many logs: turns, steps, tool calls, tokens, time, and cost'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "version" -d 'Print the log\'s format version, era and compression; exit 1 when refused'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "sessions" -d 'List the sessions of a SQLite store or of a DSH JSONL root directory'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "index" -d 'Build or update the search index of every session under the given paths'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "search" -d 'Search the text of every session: user and assistant messages, reasoning, tool calls and results'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "mcp" -d 'Serve the sessions to an agent: a Model Context Protocol server on standard I/O'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "export" -d 'Export a session to read (Markdown, HTML) or a SQLite store as DSH JSONL sessions'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "tui" -d 'Browse sessions in the terminal: the sessions list, full-text search, a session\'s turns, messages, tool calls, replaces, findings, raw events and provenance'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "statusline" -d 'Print one line for a shell prompt, tmux or an editor: tokens and cost, today, band'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "follow" -d 'Print what happens in a live log as it is appended: turns, tool calls, findings'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "rules" -d 'List every rule id with its meaning and FORMAT.md section, or explain one (rules ID)'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "man" -d 'Print a man page (roff): dsh-session(1), or one per subcommand (dsh-session-validate(1) …); `--dir` writes them all'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "completions" -d 'Print a shell completion script'
complete -c dsh-session -n "__fish_dsh_session_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l format -d 'Output format: text (one line per log and a summary), json (an array of objects), jsonl (one object per line), github (GitHub Actions annotations)' -r -f -a "text\t'Human-readable lines'
json\t'One JSON array'
jsonl\t'One JSON object per line'
github\t'GitHub Actions workflow commands: `::error` for corrupt and refused logs, `::warning` for torn tails and warnings'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l provider -d 'Also fail the gate (exit 1) when this provider would refuse the derived history (its P-rules; see `dsh-session rules`). Without it, provider findings are warnings' -r -f -a "anthropic\t'Anthropic Messages API: P1, P2, P3, P5, P6, P7'
openai\t'OpenAI chat completions and OpenAI-compatible gateways: P1, P2, P3, P5'
deepseek\t'DeepSeek, DSH\'s default provider (OpenAI-compatible plus thinking mode): P1-P5'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -s q -l quiet -d 'Print only logs that are not valid or carry warnings (in every format), and no summary'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -l strict -d 'Fail the gate (exit 1) on any warning, provider findings included'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand validate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l at -d 'Show the surface right after the event with this seq (default: the whole log)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l format -d 'Output format' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l all -d 'Also list the entries replaces shadowed, each marked with the seq that shadowed it: the whole history of the surface, in seq order'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -l salvage -d 'Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error). The exit code stays 1'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand surface" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l at -d 'Derive the messages of the surface right after the event with this seq' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l seq -d 'Print only the message the event with this seq derives, on the surface or shadowed by a replace (what a `search` hit\'s `open` runs): the stored message itself, one line, with either --format' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l format -d 'Output format: json (one array) or jsonl (one message per line)' -r -f -a "json\t'One JSON array of messages'
jsonl\t'One message per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l provider -d 'The history this provider would receive after `repair --provider NAME`: DSH\'s closers and the heals, computed in memory (nothing is written). The same output as `messages`; each change is a note on standard error (as data: `repair --dry-run --provider NAME --format json`)' -r -f -a "anthropic\t'Anthropic Messages API: P1, P2, P3, P5, P6, P7'
openai\t'OpenAI chat completions and OpenAI-compatible gateways: P1, P2, P3, P5'
deepseek\t'DeepSeek, DSH\'s default provider (OpenAI-compatible plus thinking mode): P1-P5'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -l salvage -d 'Read a corrupt or refused log up to its first defect and print the messages it held there, the defect named in a `salvaged` field (json; jsonl: on standard error). The exit code stays 1'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand messages" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l session -d 'The session to repair in a SQLite store (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l provider -d 'After DSH\'s repair, also heal the derived history for this provider: append the fewest surface replacements (user messages citing what they shadow) that make it pass the provider\'s P-rules. Nothing stored is changed or removed' -r -f -a "anthropic\t'Anthropic Messages API: P1, P2, P3, P5, P6, P7'
openai\t'OpenAI chat completions and OpenAI-compatible gateways: P1, P2, P3, P5'
deepseek\t'DeepSeek, DSH\'s default provider (OpenAI-compatible plus thinking mode): P1-P5'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l format -d 'Output format' -r -f -a "text\t'Human-readable lines, closers verbatim'
json\t'One JSON object'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l dry-run -d 'Print what would be cut and the closer records byte for byte; write nothing'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -l no-backup -d 'Do not keep a copy of the original as FILE.bak.<UTC time>'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l out -d 'The DSH root to write the new sessions under (ROOT/--<project>--/<session id>/session[.vN].jsonl[.zstd]); it may be the root the log is in' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l session -d 'The session to recover from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l as -d 'The encoding to write: plain (session.jsonl) or zstd (session.jsonl.zstd). Default: the log\'s; plain for a SQLite store. A DSH root holds one encoding' -r -f -a "plain\t'Plain JSONL (`session.jsonl`)'
zstd\t'zstd JSONL (`session.jsonl.zstd`)'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l provider -d 'Also heal each session for this provider, as `repair --provider NAME` does: append the fewest surface replacements that make its history pass the provider\'s P-rules' -r -f -a "anthropic\t'Anthropic Messages API: P1, P2, P3, P5, P6, P7'
openai\t'OpenAI chat completions and OpenAI-compatible gateways: P1, P2, P3, P5'
deepseek\t'DeepSeek, DSH\'s default provider (OpenAI-compatible plus thinking mode): P1-P5'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l format -d 'Output format' -r -f -a "text\t'Human-readable lines, closers verbatim'
json\t'One JSON object'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -l dry-run -d 'Print what would be written (sessions, closers, changes, records left out, what cannot be recovered); write nothing'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand recover" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l at -d 'A seq of the log: the new session holds the history up to the end of the turn that holds it (up to the seq itself when it is outside a turn)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l out -d 'The DSH root to write the new session under (ROOT/--<project>--/<session id>/session[.vN].jsonl[.zstd]); it may be the root the log is in' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l id -d 'The new session\'s id. Default: `session-<UUID v4>`, as DSH makes one' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l as -d 'The encoding to write: plain (session.jsonl) or zstd (session.jsonl.zstd). Default: the log\'s; plain for a SQLite store' -r -f -a "plain\t'Plain JSONL (`session.jsonl`)'
zstd\t'zstd JSONL (`session.jsonl.zstd`)'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l format -d 'Output format' -r -f -a "text\t'Human-readable lines, closers verbatim'
json\t'One JSON object'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -l dry-run -d 'Print what would be written; write nothing'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand fork" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l tool-output-max -d 'Cut each tool result\'s text to this many bytes (a marker says how much was cut)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l drop-turns -d 'Leave out turns A to B (both included, by `data.turn`); the turns after them are renumbered' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l out -d 'The DSH root to write the new session under (ROOT/--<project>--/<session id>/session[.vN].jsonl[.zstd]); it may be the root the log is in' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l id -d 'The new session\'s id. Default: `session-<UUID v4>`, as DSH makes one' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l as -d 'The encoding to write: plain (session.jsonl) or zstd (session.jsonl.zstd). Default: the log\'s; plain for a SQLite store' -r -f -a "plain\t'Plain JSONL (`session.jsonl`)'
zstd\t'zstd JSONL (`session.jsonl.zstd`)'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l format -d 'Output format' -r -f -a "text\t'Human-readable lines, closers verbatim'
json\t'One JSON object'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -l dry-run -d 'Print what would be written; write nothing'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand trim" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l depth -d 'Cut both trees after this many levels (at most 1000 are ever walked)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l format -d 'Output format: tree (indented text), json, or dot (Graphviz, for `dot -Tsvg`)' -r -f -a "text\t'Indented trees (`tree` is an alias)'
json\t'One JSON object'
dot\t'A Graphviz digraph of the neighbourhood'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -l salvage -d 'Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error). The exit code stays 1'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand provenance" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -l format -d 'Output format' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -l salvage -d 'Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error). The exit code stays 1'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand replacements" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l format -d 'Output format' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l seq -d 'Show only the message the event with this seq derives (on the surface or shadowed by a replace): its seq, type, role and whether it is on the surface, then the stored message, indented (json: those fields and `message`)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -l salvage -d 'Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON: a `salvaged` field; jsonl: on standard error). The exit code stays 1'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l by -d 'One row per: day (of each turn\'s start, in --tz), session (a log, or a session of a store), model (the provider/model that produced the tokens; a turn counts for the model of its first answer), project (the header\'s cwd), band (the price band of each message\'s time: peak, off-peak) or hour (of the day, in --tz)' -r -f -a "day\t'A calendar day of the turns\' start times, in --tz'
session\t'A session: a log file, or one session of a SQLite store'
model\t'A provider/model'
project\t'A project: the header\'s cwd'
band\t'A price band (peak, off-peak; `-` for tokens without a price), by each message\'s time'
hour\t'An hour of the day in --tz (00 to 23), by each message\'s time'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l since -d 'Count only turns that start at or after WHEN: a date (2026-11-30, from its first moment), a date and time (2026-11-30T14:00), both in --tz, or a time with an offset (2026-11-30T14:00:00Z)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l until -d 'Count only turns that start before WHEN (as for --since); a date includes that whole day, so `--since 2026-11-01 --until 2026-11-30` is all of November 1 to 30' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l tz -d 'The time zone of days and of --since/--until without an offset: an IANA name such as Europe/Berlin' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l prices -d 'A price table (TOML or JSON, the built-in table\'s schema, README "stats") tried before the built-in one (DeepSeek\'s CNY prices and peak hours): it overrides and extends it. A model without a price gets no cost, never a guess: it is listed' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l format -d 'Output format: text (a table, a total row and notes), json (one object with schema_version), csv or jsonl (flat rows, no total, for DuckDB or a spreadsheet)' -r -f -a "text\t'A table with a total row, then notes on logs not counted in full'
json\t'One JSON object: rows, total and notes'
csv\t'Comma-separated rows with a header line; notes go to standard error'
jsonl\t'One JSON object per row; notes go to standard error'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -l subagents-apart -d 'With --by session: a row of its own for each subagent, instead of its counts in its parent\'s row (when the parent is among the logs read)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -l format -d 'Output format' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand version" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -l format -d 'Output format: text (a table), json (an array), jsonl (an object per line) or csv (with a header line)' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'
csv\t'Comma-separated values with a header line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -l index -d 'The index file [default: $DSH_SESSION_INDEX, else index.db in the cache directory: $XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -l no-update -d 'A JSONL root: list what the index holds without bringing it up to date first'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand sessions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l index -d 'The index file [default: $DSH_SESSION_INDEX, else index.db in the cache directory: $XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l format -d 'Output format of the summary' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l rebuild -d 'Empty the index first and read every log again'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -l check -d 'Check the whole index file first (PRAGMA quick_check; slow on a large index) and rebuild it when SQLite finds damage'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -s q -l quiet -d 'Print nothing but errors: no progress bar, no summary, no notes'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand index" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l index -d 'The index file [default: $DSH_SESSION_INDEX, else index.db in the cache directory: $XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l project -d 'Only sessions whose project (the header\'s cwd) contains TEXT' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l session -d 'Only the session with this id, or whose id starts with it' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l since -d 'Only messages at or after WHEN: a date (2026-11-30), a date and time (2026-11-30T14:00), both in --tz, or a time with an offset (2026-11-30T14:00:00Z)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l until -d 'Only messages before WHEN (as for --since; a date includes that whole day)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l tz -d 'The time zone of --since/--until without an offset: an IANA name' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l role -d 'Only this kind of text (repeat for several): user, assistant, reasoning, tool (calls and results), system' -r -f -a "user\t'What the user (or a plugin, as the user) wrote'
assistant\t'What the assistant wrote'
reasoning\t'The assistant\'s reasoning'
tool\t'Tool calls (name and arguments) and tool results'
system\t'System and developer messages'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l tool -d 'Only the calls and results of this tool' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l limit -d 'At most N hits (with -l, sessions); 0 for all' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l format -d 'Output format: text, json (an array), jsonl (an object per line)' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l no-update -d 'Search the index as it is, without reading changed logs first'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -l include-shadowed -d 'Also search messages a replace took off the surface (compacted or pruned)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -s l -l sessions-with-matches -d 'Print only the sessions with hits, the best first'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -s q -l quiet -d 'No progress bar and no notes while the index is brought up to date'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -l root -d 'A JSONL root, session directory, log or SQLite store whose sessions the tools serve (repeat for several); none: every path indexed before' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -l index -d 'The index file [default: $DSH_SESSION_INDEX, else index.db in the cache directory: $XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand mcp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l format -d 'Output format' -r -f -a "markdown\t'A Markdown transcript (GitHub-flavoured, `<details>` for collapsed parts)'
html\t'One self-contained HTML page (no network request), light and dark'
dsh-jsonl\t'A SQLite store\'s sessions as DSH JSONL session directories under --out'
site\t'A browsable static site of every session under the paths, in --out DIR: an index by project, a page per session, search; a second run rewrites only what changed'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -s o -l output -d 'Write the transcript to FILE (atomically: a temporary file renamed into place) instead of standard output (markdown and html)' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l out -d 'The JSONL root to write the store\'s sessions under (dsh-jsonl), or the directory of the site (site); required for both' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l session -d 'The session to read from a SQLite store: its id or a unique prefix of it (optional when the store holds one; dsh-jsonl exports every session without it)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l prices -d 'A price table (TOML or JSON, the schema of `stats --prices`) tried before the built-in one for the site\'s cost column (site only). A session with a model without a price, or of two currencies, gets no cost, never a guess' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l no-redact -d 'Keep secrets and home directories as recorded (redaction is on by default)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -l salvage -d 'Export a corrupt or refused log up to its first defect (markdown, html), the defect named at the top; the exit code stays 1. A store\'s damaged session becomes a session DSH loads with `dsh-session recover`'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -l index -d 'The index file [default: $DSH_SESSION_INDEX, else index.db in the cache directory: $XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -l no-update -d 'Browse the index as it is, without reading changed logs first'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand tui" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l root -d 'DSH\'s sessions root, for the newest session and today\'s cost [default: ~/.dsh/sessions]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l prices -d 'A price table over the built-in one (as `stats --prices`)' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l width -d 'The line\'s width in columns [default: $COLUMNS, else 80]' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l now -d 'Now, for the band and today (as `stats --since` takes a time; for scripts and tests)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l cache -d 'The cache file [default: statusline.json in the user\'s cache directory]' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -l no-cache -d 'Read every log of today again, without the cache'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand statusline" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l format -d 'Output format: text (one line per happening) or jsonl (one object per happening, with schema_version and kind)' -r -f -a "text\t'One line per happening'
jsonl\t'One JSON object per happening'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l settle -d 'Seconds a torn line (or zstd frame) may stay incomplete before it is reported as a torn tail (J2, Z3); it is reported once, and followed on if completed later' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l poll-ms -d 'Milliseconds between polls when no file notification arrives (the fallback where notifications are missing, and a safety net)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l provider -d 'Also report, at each turn\'s end, the findings of this provider\'s rules that the derived history newly has (see `dsh-session rules`)' -r -f -a "anthropic\t'Anthropic Messages API: P1, P2, P3, P5, P6, P7'
openai\t'OpenAI chat completions and OpenAI-compatible gateways: P1, P2, P3, P5'
deepseek\t'DeepSeek, DSH\'s default provider (OpenAI-compatible plus thinking mode): P1-P5'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l session -d 'The session to follow in a SQLite store: its id or a unique prefix of it (optional when the store holds one)' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l from-start -d 'Print every happening from the start of the log, not only a summary of what it held when following began'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l exit-on-finding -d 'Exit 1 at the first corrupt or refused finding (for CI)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l no-text -d 'Do not print what is said (user and assistant messages, one line each)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -l reasoning -d 'Also print the assistant\'s reasoning, one line per message'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand follow" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand rules" -l format -d 'Output format' -r -f -a "text\t'A text table that fits the terminal (`table` is an alias)'
json\t'One JSON value'
jsonl\t'One JSON object per line'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand rules" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand rules" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand rules" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand rules" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand rules" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand man" -l dir -d 'Write every page (dsh-session.1 and dsh-session-COMMAND.1) into this directory instead of printing one' -r -F
complete -c dsh-session -n "__fish_dsh_session_using_subcommand man" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand man" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand man" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand man" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand man" -s h -l help -d 'Print help'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand completions" -l color -d 'When to colour output: auto (on a terminal, unless NO_COLOR is set), always, never' -r -f -a "auto\t'Colour on a terminal unless NO_COLOR is set and non-empty'
always\t'Always colour'
never\t'Never colour'"
complete -c dsh-session -n "__fish_dsh_session_using_subcommand completions" -l dsh -d 'Judge logs as this DSH release line does: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6: older logs are migrated through the frozen edges to v3, a log an edge refuses is `refused`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x: as 0.1.5, and v4 is read and written). The default, `latest`, is 0.1.7; `writer` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand completions" -l platform -d 'Judge logs as DSH on this platform does: posix (Linux, macOS) or windows. A log\'s `cwd` is absolute on one and not the other (`C:\\DEV\\proj` only on Windows: H8). Default: the platform that wrote each log, as its `cwd` shows' -r
complete -c dsh-session -n "__fish_dsh_session_using_subcommand completions" -s v -l verbose -d 'Also print the cause chain of an error'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand completions" -s h -l help -d 'Print help'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "validate" -d 'Check logs the way DSH does on load; the exit code tells (CI gate)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "surface" -d 'Print the surface: the ordered events whose messages the model sees'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "messages" -d 'Print the derived message history (deriveMessages), byte for byte as stored'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "repair" -d 'Repair a log after a crash exactly as DSH does on its next load'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "recover" -d 'Make new sessions DSH loads from a log it refuses, losing nothing it can keep'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "fork" -d 'Start a new session from an earlier point of a session: the history up to the end of the turn that holds SEQ'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "trim" -d 'Make a smaller copy of a session: tool outputs cut to a size, turns left out'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "provenance" -d 'Show where an event came from, what cites it, and what shadowed it'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "replacements" -d 'List every replace in log order: generation, range, shadowed seqs, surface lengths'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "show" -d 'Summarise a log: header, era, turns, steps, tool calls, tokens, times'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "stats" -d 'Report usage over many logs: turns, steps, tool calls, tokens, time, and cost'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "version" -d 'Print the log\'s format version, era and compression; exit 1 when refused'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "sessions" -d 'List the sessions of a SQLite store or of a DSH JSONL root directory'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "index" -d 'Build or update the search index of every session under the given paths'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "search" -d 'Search the text of every session: user and assistant messages, reasoning, tool calls and results'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "mcp" -d 'Serve the sessions to an agent: a Model Context Protocol server on standard I/O'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "export" -d 'Export a session to read (Markdown, HTML) or a SQLite store as DSH JSONL sessions'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "tui" -d 'Browse sessions in the terminal: the sessions list, full-text search, a session\'s turns, messages, tool calls, replaces, findings, raw events and provenance'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "statusline" -d 'Print one line for a shell prompt, tmux or an editor: tokens and cost, today, band'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "follow" -d 'Print what happens in a live log as it is appended: turns, tool calls, findings'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "rules" -d 'List every rule id with its meaning and FORMAT.md section, or explain one (rules ID)'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "man" -d 'Print a man page (roff): dsh-session(1), or one per subcommand (dsh-session-validate(1) …); `--dir` writes them all'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "completions" -d 'Print a shell completion script'
complete -c dsh-session -n "__fish_dsh_session_using_subcommand help; and not __fish_seen_subcommand_from validate surface messages repair recover fork trim provenance replacements show stats version sessions index search mcp export tui statusline follow rules man completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
