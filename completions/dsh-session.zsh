#compdef dsh-session

autoload -U is-at-least

_dsh-session() {
    typeset -A opt_args
    typeset -a _arguments_options
    local ret=1

    if is-at-least 5.2; then
        _arguments_options=(-s -S -C)
    else
        _arguments_options=(-s -C)
    fi

    local context curcontext="$curcontext" state line
    _arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'-V[Print version]' \
'--version[Print version]' \
":: :_dsh-session_commands" \
"*::: :->dsh-session" \
&& ret=0
    case $state in
    (dsh-session)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:dsh-session-command-$line[1]:"
        case $line[1] in
            (validate)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format\: text (one line per log and a summary), json (an array of objects), jsonl (one object per line), github (GitHub Actions annotations)]:FORMAT:((text\:"Human-readable lines"
json\:"One JSON array"
jsonl\:"One JSON object per line"
github\:"GitHub Actions workflow commands\: \`\:\:error\` for corrupt and refused logs, \`\:\:warning\` for torn tails and warnings"))' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--provider=[Also fail the gate (exit 1) when this provider would refuse the derived history (its P-rules; see \`dsh-session rules\`). Without it, provider findings are warnings]:NAME:((anthropic\:"Anthropic Messages API\: P1, P2, P3, P5, P6, P7"
openai\:"OpenAI chat completions and OpenAI-compatible gateways\: P1, P2, P3, P5"
deepseek\:"DeepSeek, DSH'\''s default provider (OpenAI-compatible plus thinking mode)\: P1-P5"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-q[Print only logs that are not valid or carry warnings (in every format), and no summary]' \
'--quiet[Print only logs that are not valid or carry warnings (in every format), and no summary]' \
'--strict[Fail the gate (exit 1) on any warning, provider findings included]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::files -- Session logs, SQLite stores, or directories to walk for DSH'\''s log names (`session.jsonl`, `session.vN.jsonl`, either with `.zstd`), other `*.jsonl` / `*.jsonl.zstd` files whose first line is a DSH session header, and stores (`*.db`, `*.sqlite`, `*.sqlite3`); `-` reads standard input. None\: DSH'\''s default root, ~/.dsh/sessions:_files' \
&& ret=0
;;
(surface)
_arguments "${_arguments_options[@]}" : \
'--at=[Show the surface right after the event with this seq (default\: the whole log)]:SEQ:_default' \
'--format=[Output format]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--all[Also list the entries replaces shadowed, each marked with the seq that shadowed it\: the whole history of the surface, in seq order]' \
'--salvage[Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON\: a \`salvaged\` field; jsonl\: on standard error). The exit code stays 1]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input):_files' \
&& ret=0
;;
(messages)
_arguments "${_arguments_options[@]}" : \
'(--seq)--at=[Derive the messages of the surface right after the event with this seq]:SEQ:_default' \
'(--salvage)--seq=[Print only the message the event with this seq derives, on the surface or shadowed by a replace (what a \`search\` hit'\''s \`open\` runs)\: the stored message itself, one line, with either --format]:SEQ:_default' \
'--format=[Output format\: json (one array) or jsonl (one message per line)]:FORMAT:((json\:"One JSON array of messages"
jsonl\:"One message per line"))' \
'(--at --seq)--provider=[The history this provider would receive after \`repair --provider NAME\`\: DSH'\''s closers and the heals, computed in memory (nothing is written). The same output as \`messages\`; each change is a note on standard error (as data\: \`repair --dry-run --provider NAME --format json\`)]:NAME:((anthropic\:"Anthropic Messages API\: P1, P2, P3, P5, P6, P7"
openai\:"OpenAI chat completions and OpenAI-compatible gateways\: P1, P2, P3, P5"
deepseek\:"DeepSeek, DSH'\''s default provider (OpenAI-compatible plus thinking mode)\: P1-P5"))' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'(--provider)--salvage[Read a corrupt or refused log up to its first defect and print the messages it held there, the defect named in a \`salvaged\` field (json; jsonl\: on standard error). The exit code stays 1]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input):_files' \
&& ret=0
;;
(repair)
_arguments "${_arguments_options[@]}" : \
'--session=[The session to repair in a SQLite store (optional when the store holds one)]:ID:_default' \
'--provider=[After DSH'\''s repair, also heal the derived history for this provider\: append the fewest surface replacements (user messages citing what they shadow) that make it pass the provider'\''s P-rules. Nothing stored is changed or removed]:NAME:((anthropic\:"Anthropic Messages API\: P1, P2, P3, P5, P6, P7"
openai\:"OpenAI chat completions and OpenAI-compatible gateways\: P1, P2, P3, P5"
deepseek\:"DeepSeek, DSH'\''s default provider (OpenAI-compatible plus thinking mode)\: P1-P5"))' \
'--format=[Output format]:FORMAT:((text\:"Human-readable lines, closers verbatim"
json\:"One JSON object"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--dry-run[Print what would be cut and the closer records byte for byte; write nothing]' \
'--no-backup[Do not keep a copy of the original as FILE.bak.<UTC time>]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (a file; standard input cannot be repaired):_files' \
&& ret=0
;;
(recover)
_arguments "${_arguments_options[@]}" : \
'--out=[The DSH root to write the new sessions under (ROOT/--<project>--/<session id>/session\[.vN\].jsonl\[.zstd\]); it may be the root the log is in]:ROOT:_files' \
'--session=[The session to recover from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--as=[The encoding to write\: plain (session.jsonl) or zstd (session.jsonl.zstd). Default\: the log'\''s; plain for a SQLite store. A DSH root holds one encoding]:ENCODING:((plain\:"Plain JSONL (\`session.jsonl\`)"
zstd\:"zstd JSONL (\`session.jsonl.zstd\`)"))' \
'--provider=[Also heal each session for this provider, as \`repair --provider NAME\` does\: append the fewest surface replacements that make its history pass the provider'\''s P-rules]:NAME:((anthropic\:"Anthropic Messages API\: P1, P2, P3, P5, P6, P7"
openai\:"OpenAI chat completions and OpenAI-compatible gateways\: P1, P2, P3, P5"
deepseek\:"DeepSeek, DSH'\''s default provider (OpenAI-compatible plus thinking mode)\: P1-P5"))' \
'--format=[Output format]:FORMAT:((text\:"Human-readable lines, closers verbatim"
json\:"One JSON object"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--dry-run[Print what would be written (sessions, closers, changes, records left out, what cannot be recovered); write nothing]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The log DSH refuses\: a file, a session directory, or a SQLite store (standard input cannot be recovered):_files' \
&& ret=0
;;
(fork)
_arguments "${_arguments_options[@]}" : \
'--at=[A seq of the log\: the new session holds the history up to the end of the turn that holds it (up to the seq itself when it is outside a turn)]:SEQ:_default' \
'--out=[The DSH root to write the new session under (ROOT/--<project>--/<session id>/session\[.vN\].jsonl\[.zstd\]); it may be the root the log is in]:ROOT:_files' \
'--id=[The new session'\''s id. Default\: \`session-<UUID v4>\`, as DSH makes one]:ID:_default' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--as=[The encoding to write\: plain (session.jsonl) or zstd (session.jsonl.zstd). Default\: the log'\''s; plain for a SQLite store]:ENCODING:((plain\:"Plain JSONL (\`session.jsonl\`)"
zstd\:"zstd JSONL (\`session.jsonl.zstd\`)"))' \
'--format=[Output format]:FORMAT:((text\:"Human-readable lines, closers verbatim"
json\:"One JSON object"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--dry-run[Print what would be written; write nothing]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The log to fork\: a file, a session directory, or a SQLite store. It is never changed:_files' \
&& ret=0
;;
(trim)
_arguments "${_arguments_options[@]}" : \
'--tool-output-max=[Cut each tool result'\''s text to this many bytes (a marker says how much was cut)]:BYTES:_default' \
'--drop-turns=[Leave out turns A to B (both included, by \`data.turn\`); the turns after them are renumbered]:A..B:_default' \
'--out=[The DSH root to write the new session under (ROOT/--<project>--/<session id>/session\[.vN\].jsonl\[.zstd\]); it may be the root the log is in]:ROOT:_files' \
'--id=[The new session'\''s id. Default\: \`session-<UUID v4>\`, as DSH makes one]:ID:_default' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--as=[The encoding to write\: plain (session.jsonl) or zstd (session.jsonl.zstd). Default\: the log'\''s; plain for a SQLite store]:ENCODING:((plain\:"Plain JSONL (\`session.jsonl\`)"
zstd\:"zstd JSONL (\`session.jsonl.zstd\`)"))' \
'--format=[Output format]:FORMAT:((text\:"Human-readable lines, closers verbatim"
json\:"One JSON object"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--dry-run[Print what would be written; write nothing]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The log to trim\: a file, a session directory, or a SQLite store. It is never changed:_files' \
&& ret=0
;;
(provenance)
_arguments "${_arguments_options[@]}" : \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--depth=[Cut both trees after this many levels (at most 1000 are ever walked)]:N:_default' \
'--format=[Output format\: tree (indented text), json, or dot (Graphviz, for \`dot -Tsvg\`)]:FORMAT:((text\:"Indented trees (\`tree\` is an alias)"
json\:"One JSON object"
dot\:"A Graphviz digraph of the neighbourhood"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--salvage[Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON\: a \`salvaged\` field; jsonl\: on standard error). The exit code stays 1]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input):_files' \
':seq -- The event to explain:_default' \
&& ret=0
;;
(replacements)
_arguments "${_arguments_options[@]}" : \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--format=[Output format]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--salvage[Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON\: a \`salvaged\` field; jsonl\: on standard error). The exit code stays 1]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input):_files' \
&& ret=0
;;
(show)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'(--salvage)--seq=[Show only the message the event with this seq derives (on the surface or shadowed by a replace)\: its seq, type, role and whether it is on the surface, then the stored message, indented (json\: those fields and \`message\`)]:SEQ:_default' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--salvage[Read a corrupt or refused log up to its first defect and print what it held there, the defect named at the top (JSON\: a \`salvaged\` field; jsonl\: on standard error). The exit code stays 1]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input):_files' \
&& ret=0
;;
(stats)
_arguments "${_arguments_options[@]}" : \
'--by=[One row per\: day (of each turn'\''s start, in --tz), session (a log, or a session of a store), model (the provider/model that produced the tokens; a turn counts for the model of its first answer), project (the header'\''s cwd), band (the price band of each message'\''s time\: peak, off-peak) or hour (of the day, in --tz)]:BY:((day\:"A calendar day of the turns'\'' start times, in --tz"
session\:"A session\: a log file, or one session of a SQLite store"
model\:"A provider/model"
project\:"A project\: the header'\''s cwd"
band\:"A price band (peak, off-peak; \`-\` for tokens without a price), by each message'\''s time"
hour\:"An hour of the day in --tz (00 to 23), by each message'\''s time"))' \
'--since=[Count only turns that start at or after WHEN\: a date (2026-11-30, from its first moment), a date and time (2026-11-30T14\:00), both in --tz, or a time with an offset (2026-11-30T14\:00\:00Z)]:WHEN:_default' \
'--until=[Count only turns that start before WHEN (as for --since); a date includes that whole day, so \`--since 2026-11-01 --until 2026-11-30\` is all of November 1 to 30]:WHEN:_default' \
'--tz=[The time zone of days and of --since/--until without an offset\: an IANA name such as Europe/Berlin]:ZONE:_default' \
'--prices=[A price table (TOML or JSON, the built-in table'\''s schema, README "stats") tried before the built-in one (DeepSeek'\''s CNY prices and peak hours)\: it overrides and extends it. A model without a price gets no cost, never a guess\: it is listed]:FILE:_files' \
'--format=[Output format\: text (a table, a total row and notes), json (one object with schema_version), csv or jsonl (flat rows, no total, for DuckDB or a spreadsheet)]:FORMAT:((text\:"A table with a total row, then notes on logs not counted in full"
json\:"One JSON object\: rows, total and notes"
csv\:"Comma-separated rows with a header line; notes go to standard error"
jsonl\:"One JSON object per row; notes go to standard error"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--subagents-apart[With --by session\: a row of its own for each subagent, instead of its counts in its parent'\''s row (when the parent is among the logs read)]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::files -- Session logs, session directories, SQLite stores (every session in them), or directories to walk as `validate` walks them; `-` reads standard input. None\: DSH'\''s default root, ~/.dsh/sessions:_files' \
&& ret=0
;;
(version)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input):_files' \
&& ret=0
;;
(sessions)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format\: text (a table), json (an array), jsonl (an object per line) or csv (with a header line)]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"
csv\:"Comma-separated values with a header line"))' \
'--index=[The index file \[default\: \$DSH_SESSION_INDEX, else index.db in the cache directory\: \$XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache\]]:FILE:_files' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--no-update[A JSONL root\: list what the index holds without bringing it up to date first]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::store -- A SQLite store, or a JSONL root directory (`<root>/<project>/<session>/session.jsonl\[.zstd\]`, walked as `validate` walks it). None\: DSH'\''s default root, ~/.dsh/sessions:_files' \
&& ret=0
;;
(index)
_arguments "${_arguments_options[@]}" : \
'--index=[The index file \[default\: \$DSH_SESSION_INDEX, else index.db in the cache directory\: \$XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache\]]:FILE:_files' \
'--format=[Output format of the summary]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--rebuild[Empty the index first and read every log again]' \
'--check[Check the whole index file first (PRAGMA quick_check; slow on a large index) and rebuild it when SQLite finds damage]' \
'-q[Print nothing but errors\: no progress bar, no summary, no notes]' \
'--quiet[Print nothing but errors\: no progress bar, no summary, no notes]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- JSONL roots, session directories, logs and SQLite stores to index (directories are walked as `validate` walks them); none\: the paths indexed before:_files' \
&& ret=0
;;
(search)
_arguments "${_arguments_options[@]}" : \
'--index=[The index file \[default\: \$DSH_SESSION_INDEX, else index.db in the cache directory\: \$XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache\]]:FILE:_files' \
'--project=[Only sessions whose project (the header'\''s cwd) contains TEXT]:TEXT:_default' \
'--session=[Only the session with this id, or whose id starts with it]:ID:_default' \
'--since=[Only messages at or after WHEN\: a date (2026-11-30), a date and time (2026-11-30T14\:00), both in --tz, or a time with an offset (2026-11-30T14\:00\:00Z)]:WHEN:_default' \
'--until=[Only messages before WHEN (as for --since; a date includes that whole day)]:WHEN:_default' \
'--tz=[The time zone of --since/--until without an offset\: an IANA name]:ZONE:_default' \
'*--role=[Only this kind of text (repeat for several)\: user, assistant, reasoning, tool (calls and results), system]:ROLE:((user\:"What the user (or a plugin, as the user) wrote"
assistant\:"What the assistant wrote"
reasoning\:"The assistant'\''s reasoning"
tool\:"Tool calls (name and arguments) and tool results"
system\:"System and developer messages"))' \
'--tool=[Only the calls and results of this tool]:NAME:_default' \
'--limit=[At most N hits (with -l, sessions); 0 for all]:N:_default' \
'--format=[Output format\: text, json (an array), jsonl (an object per line)]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--no-update[Search the index as it is, without reading changed logs first]' \
'--include-shadowed[Also search messages a replace took off the surface (compacted or pruned)]' \
'-l[Print only the sessions with hits, the best first]' \
'--sessions-with-matches[Print only the sessions with hits, the best first]' \
'-q[No progress bar and no notes while the index is brought up to date]' \
'--quiet[No progress bar and no notes while the index is brought up to date]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':query -- What to find\: plain words (all must occur, as substrings, in one message part), or FTS5 syntax ("a phrase", AND, OR, NOT, NEAR(...), prefix*):_default' \
'*::paths -- JSONL roots, logs and stores to search (brought up to date first); none\: every path indexed before:_files' \
&& ret=0
;;
(mcp)
_arguments "${_arguments_options[@]}" : \
'*--root=[A JSONL root, session directory, log or SQLite store whose sessions the tools serve (repeat for several); none\: every path indexed before]:ROOT:_files' \
'--index=[The index file \[default\: \$DSH_SESSION_INDEX, else index.db in the cache directory\: \$XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache\]]:FILE:_files' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format]:FORMAT:((markdown\:"A Markdown transcript (GitHub-flavoured, \`<details>\` for collapsed parts)"
html\:"One self-contained HTML page (no network request), light and dark"
dsh-jsonl\:"A SQLite store'\''s sessions as DSH JSONL session directories under --out"
site\:"A browsable static site of every session under the paths, in --out DIR\: an index by project, a page per session, search; a second run rewrites only what changed"))' \
'(--out)-o+[Write the transcript to FILE (atomically\: a temporary file renamed into place) instead of standard output (markdown and html)]:FILE:_files' \
'(--out)--output=[Write the transcript to FILE (atomically\: a temporary file renamed into place) instead of standard output (markdown and html)]:FILE:_files' \
'--out=[The JSONL root to write the store'\''s sessions under (dsh-jsonl), or the directory of the site (site); required for both]:DIR:_files' \
'--session=[The session to read from a SQLite store\: its id or a unique prefix of it (optional when the store holds one; dsh-jsonl exports every session without it)]:ID:_default' \
'--prices=[A price table (TOML or JSON, the schema of \`stats --prices\`) tried before the built-in one for the site'\''s cost column (site only). A session with a model without a price, or of two currencies, gets no cost, never a guess]:FILE:_files' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--no-redact[Keep secrets and home directories as recorded (redaction is on by default)]' \
'--salvage[Export a corrupt or refused log up to its first defect (markdown, html), the defect named at the top; the exit code stays 1. A store'\''s damaged session becomes a session DSH loads with \`dsh-session recover\`]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':file -- The session log (`-` reads standard input), a session directory, or a SQLite store; with --format site, any number of roots, session directories, logs and stores:_files' \
'*::more -- More paths, for --format site:_files' \
&& ret=0
;;
(tui)
_arguments "${_arguments_options[@]}" : \
'--index=[The index file \[default\: \$DSH_SESSION_INDEX, else index.db in the cache directory\: \$XDG_CACHE_HOME/dsh-session, ~/Library/Caches/dsh-session, %LOCALAPPDATA%\\dsh-session\\cache\]]:FILE:_files' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--no-update[Browse the index as it is, without reading changed logs first]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'*::paths -- JSONL roots, session directories, logs and SQLite stores to browse \[default\: the paths indexed before, else ~/.dsh/sessions\]:_files' \
&& ret=0
;;
(statusline)
_arguments "${_arguments_options[@]}" : \
'--root=[DSH'\''s sessions root, for the newest session and today'\''s cost \[default\: ~/.dsh/sessions\]]:DIR:_files' \
'--prices=[A price table over the built-in one (as \`stats --prices\`)]:FILE:_files' \
'--width=[The line'\''s width in columns \[default\: \$COLUMNS, else 80\]]:N:_default' \
'--now=[Now, for the band and today (as \`stats --since\` takes a time; for scripts and tests)]:WHEN:_default' \
'--cache=[The cache file \[default\: statusline.json in the user'\''s cache directory\]]:FILE:_files' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--no-cache[Read every log of today again, without the cache]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::path -- The session log \[default\: the log under --root written last\]:_files' \
&& ret=0
;;
(follow)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format\: text (one line per happening) or jsonl (one object per happening, with schema_version and kind)]:FORMAT:((text\:"One line per happening"
jsonl\:"One JSON object per happening"))' \
'--settle=[Seconds a torn line (or zstd frame) may stay incomplete before it is reported as a torn tail (J2, Z3); it is reported once, and followed on if completed later]:SECONDS:_default' \
'--poll-ms=[Milliseconds between polls when no file notification arrives (the fallback where notifications are missing, and a safety net)]:MS:_default' \
'--provider=[Also report, at each turn'\''s end, the findings of this provider'\''s rules that the derived history newly has (see \`dsh-session rules\`)]:NAME:((anthropic\:"Anthropic Messages API\: P1, P2, P3, P5, P6, P7"
openai\:"OpenAI chat completions and OpenAI-compatible gateways\: P1, P2, P3, P5"
deepseek\:"DeepSeek, DSH'\''s default provider (OpenAI-compatible plus thinking mode)\: P1-P5"))' \
'--session=[The session to follow in a SQLite store\: its id or a unique prefix of it (optional when the store holds one)]:ID:_default' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'--from-start[Print every happening from the start of the log, not only a summary of what it held when following began]' \
'--exit-on-finding[Exit 1 at the first corrupt or refused finding (for CI)]' \
'--no-text[Do not print what is said (user and assistant messages, one line each)]' \
'(--no-text)--reasoning[Also print the assistant'\''s reasoning, one line per message]' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
':path -- A session log (plain or zstd JSONL), a SQLite store, a session directory, or a JSONL root directory:_files' \
&& ret=0
;;
(rules)
_arguments "${_arguments_options[@]}" : \
'--format=[Output format]:FORMAT:((text\:"A text table that fits the terminal (\`table\` is an alias)"
json\:"One JSON value"
jsonl\:"One JSON object per line"))' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help (see more with '\''--help'\'')]' \
'--help[Print help (see more with '\''--help'\'')]' \
'::id -- One rule to explain (`J5`, `P3`)\: its section, class, meaning, an example message and what to do; or why no file makes this reader report it:_default' \
&& ret=0
;;
(man)
_arguments "${_arguments_options[@]}" : \
'()--dir=[Write every page (dsh-session.1 and dsh-session-COMMAND.1) into this directory instead of printing one]:DIR:_files' \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help]' \
'--help[Print help]' \
'::command -- The subcommand whose page to print (dsh-session-COMMAND(1)); the main page when absent:_default' \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
'--color=[When to colour output\: auto (on a terminal, unless NO_COLOR is set), always, never]:COLOR:((auto\:"Colour on a terminal unless NO_COLOR is set and non-empty"
always\:"Always colour"
never\:"Never colour"))' \
'--dsh=[Judge logs as this DSH release line does\: 0.1.1 (DSH 0.1.1-rc.2 loads a v0 log as it is and refuses every v1-v4 log as newer), 0.1.5 (0.1.5 and 0.1.6\: older logs are migrated through the frozen edges to v3, a log an edge refuses is \`refused\`, rules F1-F10, and a v4 log is newer, G10) or 0.1.7 (0.1.7 and later, 0.2.x\: as 0.1.5, and v4 is read and written). The default, \`latest\`, is 0.1.7; \`writer\` judges each log as the line that writes its generation (v0 as 0.1.1, v3 as 0.1.5, v4 as 0.1.7). A full version (0.1.1-rc.2, 0.2.1-alpha.2) names its line]:LINE:_default' \
'--platform=[Judge logs as DSH on this platform does\: posix (Linux, macOS) or windows. A log'\''s \`cwd\` is absolute on one and not the other (\`C\:\\DEV\\proj\` only on Windows\: H8). Default\: the platform that wrote each log, as its \`cwd\` shows]:PLATFORM:_default' \
'-v[Also print the cause chain of an error]' \
'--verbose[Also print the cause chain of an error]' \
'-h[Print help]' \
'--help[Print help]' \
':shell -- The shell:(bash elvish fish powershell zsh)' \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
":: :_dsh-session__subcmd__help_commands" \
"*::: :->help" \
&& ret=0

    case $state in
    (help)
        words=($line[1] "${words[@]}")
        (( CURRENT += 1 ))
        curcontext="${curcontext%:*:*}:dsh-session-help-command-$line[1]:"
        case $line[1] in
            (validate)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(surface)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(messages)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(repair)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(recover)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(fork)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(trim)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(provenance)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(replacements)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(show)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(stats)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(version)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(sessions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(index)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(search)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(mcp)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(export)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(tui)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(statusline)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(follow)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(rules)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(man)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(completions)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
(help)
_arguments "${_arguments_options[@]}" : \
&& ret=0
;;
        esac
    ;;
esac
;;
        esac
    ;;
esac
}

(( $+functions[_dsh-session_commands] )) ||
_dsh-session_commands() {
    local commands; commands=(
'validate:Check logs the way DSH does on load; the exit code tells (CI gate)' \
'surface:Print the surface\: the ordered events whose messages the model sees' \
'messages:Print the derived message history (deriveMessages), byte for byte as stored' \
'repair:Repair a log after a crash exactly as DSH does on its next load' \
'recover:Make new sessions DSH loads from a log it refuses, losing nothing it can keep' \
'fork:Start a new session from an earlier point of a session\: the history up to the end of the turn that holds SEQ' \
'trim:Make a smaller copy of a session\: tool outputs cut to a size, turns left out' \
'provenance:Show where an event came from, what cites it, and what shadowed it' \
'replacements:List every replace in log order\: generation, range, shadowed seqs, surface lengths' \
'show:Summarise a log\: header, era, turns, steps, tool calls, tokens, times' \
'stats:Report usage over many logs\: turns, steps, tool calls, tokens, time, and cost' \
'version:Print the log'\''s format version, era and compression; exit 1 when refused' \
'sessions:List the sessions of a SQLite store or of a DSH JSONL root directory' \
'index:Build or update the search index of every session under the given paths' \
'search:Search the text of every session\: user and assistant messages, reasoning, tool calls and results' \
'mcp:Serve the sessions to an agent\: a Model Context Protocol server on standard I/O' \
'export:Export a session to read (Markdown, HTML) or a SQLite store as DSH JSONL sessions' \
'tui:Browse sessions in the terminal\: the sessions list, full-text search, a session'\''s turns, messages, tool calls, replaces, findings, raw events and provenance' \
'statusline:Print one line for a shell prompt, tmux or an editor\: tokens and cost, today, band' \
'follow:Print what happens in a live log as it is appended\: turns, tool calls, findings' \
'rules:List every rule id with its meaning and FORMAT.md section, or explain one (rules ID)' \
'man:Print a man page (roff)\: dsh-session(1), or one per subcommand (dsh-session-validate(1) …); \`--dir\` writes them all' \
'completions:Print a shell completion script' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'dsh-session commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__completions_commands] )) ||
_dsh-session__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session completions commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__export_commands] )) ||
_dsh-session__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session export commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__follow_commands] )) ||
_dsh-session__subcmd__follow_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session follow commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__fork_commands] )) ||
_dsh-session__subcmd__fork_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session fork commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help_commands] )) ||
_dsh-session__subcmd__help_commands() {
    local commands; commands=(
'validate:Check logs the way DSH does on load; the exit code tells (CI gate)' \
'surface:Print the surface\: the ordered events whose messages the model sees' \
'messages:Print the derived message history (deriveMessages), byte for byte as stored' \
'repair:Repair a log after a crash exactly as DSH does on its next load' \
'recover:Make new sessions DSH loads from a log it refuses, losing nothing it can keep' \
'fork:Start a new session from an earlier point of a session\: the history up to the end of the turn that holds SEQ' \
'trim:Make a smaller copy of a session\: tool outputs cut to a size, turns left out' \
'provenance:Show where an event came from, what cites it, and what shadowed it' \
'replacements:List every replace in log order\: generation, range, shadowed seqs, surface lengths' \
'show:Summarise a log\: header, era, turns, steps, tool calls, tokens, times' \
'stats:Report usage over many logs\: turns, steps, tool calls, tokens, time, and cost' \
'version:Print the log'\''s format version, era and compression; exit 1 when refused' \
'sessions:List the sessions of a SQLite store or of a DSH JSONL root directory' \
'index:Build or update the search index of every session under the given paths' \
'search:Search the text of every session\: user and assistant messages, reasoning, tool calls and results' \
'mcp:Serve the sessions to an agent\: a Model Context Protocol server on standard I/O' \
'export:Export a session to read (Markdown, HTML) or a SQLite store as DSH JSONL sessions' \
'tui:Browse sessions in the terminal\: the sessions list, full-text search, a session'\''s turns, messages, tool calls, replaces, findings, raw events and provenance' \
'statusline:Print one line for a shell prompt, tmux or an editor\: tokens and cost, today, band' \
'follow:Print what happens in a live log as it is appended\: turns, tool calls, findings' \
'rules:List every rule id with its meaning and FORMAT.md section, or explain one (rules ID)' \
'man:Print a man page (roff)\: dsh-session(1), or one per subcommand (dsh-session-validate(1) …); \`--dir\` writes them all' \
'completions:Print a shell completion script' \
'help:Print this message or the help of the given subcommand(s)' \
    )
    _describe -t commands 'dsh-session help commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__completions_commands] )) ||
_dsh-session__subcmd__help__subcmd__completions_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help completions commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__export_commands] )) ||
_dsh-session__subcmd__help__subcmd__export_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help export commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__follow_commands] )) ||
_dsh-session__subcmd__help__subcmd__follow_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help follow commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__fork_commands] )) ||
_dsh-session__subcmd__help__subcmd__fork_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help fork commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__help_commands] )) ||
_dsh-session__subcmd__help__subcmd__help_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help help commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__index_commands] )) ||
_dsh-session__subcmd__help__subcmd__index_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help index commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__man_commands] )) ||
_dsh-session__subcmd__help__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help man commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__mcp_commands] )) ||
_dsh-session__subcmd__help__subcmd__mcp_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help mcp commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__messages_commands] )) ||
_dsh-session__subcmd__help__subcmd__messages_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help messages commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__provenance_commands] )) ||
_dsh-session__subcmd__help__subcmd__provenance_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help provenance commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__recover_commands] )) ||
_dsh-session__subcmd__help__subcmd__recover_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help recover commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__repair_commands] )) ||
_dsh-session__subcmd__help__subcmd__repair_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help repair commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__replacements_commands] )) ||
_dsh-session__subcmd__help__subcmd__replacements_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help replacements commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__rules_commands] )) ||
_dsh-session__subcmd__help__subcmd__rules_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help rules commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__search_commands] )) ||
_dsh-session__subcmd__help__subcmd__search_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help search commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__sessions_commands] )) ||
_dsh-session__subcmd__help__subcmd__sessions_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help sessions commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__show_commands] )) ||
_dsh-session__subcmd__help__subcmd__show_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help show commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__stats_commands] )) ||
_dsh-session__subcmd__help__subcmd__stats_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help stats commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__statusline_commands] )) ||
_dsh-session__subcmd__help__subcmd__statusline_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help statusline commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__surface_commands] )) ||
_dsh-session__subcmd__help__subcmd__surface_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help surface commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__trim_commands] )) ||
_dsh-session__subcmd__help__subcmd__trim_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help trim commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__tui_commands] )) ||
_dsh-session__subcmd__help__subcmd__tui_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help tui commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__validate_commands] )) ||
_dsh-session__subcmd__help__subcmd__validate_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help validate commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__help__subcmd__version_commands] )) ||
_dsh-session__subcmd__help__subcmd__version_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session help version commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__index_commands] )) ||
_dsh-session__subcmd__index_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session index commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__man_commands] )) ||
_dsh-session__subcmd__man_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session man commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__mcp_commands] )) ||
_dsh-session__subcmd__mcp_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session mcp commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__messages_commands] )) ||
_dsh-session__subcmd__messages_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session messages commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__provenance_commands] )) ||
_dsh-session__subcmd__provenance_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session provenance commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__recover_commands] )) ||
_dsh-session__subcmd__recover_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session recover commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__repair_commands] )) ||
_dsh-session__subcmd__repair_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session repair commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__replacements_commands] )) ||
_dsh-session__subcmd__replacements_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session replacements commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__rules_commands] )) ||
_dsh-session__subcmd__rules_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session rules commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__search_commands] )) ||
_dsh-session__subcmd__search_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session search commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__sessions_commands] )) ||
_dsh-session__subcmd__sessions_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session sessions commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__show_commands] )) ||
_dsh-session__subcmd__show_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session show commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__stats_commands] )) ||
_dsh-session__subcmd__stats_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session stats commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__statusline_commands] )) ||
_dsh-session__subcmd__statusline_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session statusline commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__surface_commands] )) ||
_dsh-session__subcmd__surface_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session surface commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__trim_commands] )) ||
_dsh-session__subcmd__trim_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session trim commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__tui_commands] )) ||
_dsh-session__subcmd__tui_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session tui commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__validate_commands] )) ||
_dsh-session__subcmd__validate_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session validate commands' commands "$@"
}
(( $+functions[_dsh-session__subcmd__version_commands] )) ||
_dsh-session__subcmd__version_commands() {
    local commands; commands=()
    _describe -t commands 'dsh-session version commands' commands "$@"
}

if [ "$funcstack[1]" = "_dsh-session" ]; then
    _dsh-session "$@"
else
    compdef _dsh-session dsh-session
fi
