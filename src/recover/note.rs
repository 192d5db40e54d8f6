//! The note a recovered session ends with: a `user/message` that says where the session
//! came from and what of it is not here, marked as the tool's (as heal notes are,
//! [`crate::heal`]): its text starts with `[dsh-session recover]`, its source is the plugin
//! `dsh-session-recover` (v4: the producer kind of that name, GENERATIONS §7) and its id
//! `dsh-session-recover-<seq>`. It is appended after DSH's closers, where no turn is open,
//! with the last event's time (no time is invented, FORMAT.md §5.2).

use crate::event::Era;
use crate::json::write_js_string;

/// Marks the first words of every note.
pub const NOTE_MARK: &str = "[dsh-session recover]";

/// The plugin (v4: the source kind) of every note.
pub const RECOVER_PLUGIN: &str = "dsh-session-recover";

/// The note record at `seq`, with `time`, saying `text` (after [`NOTE_MARK`]), in the
/// shapes of `era`: envelope `type, seq, time, data, surfaceOp` (FORMAT.md §1.4).
pub fn note_record(era: Era, seq: u64, time: i64, text: &str) -> String {
    let source = match era {
        Era::V4 => format!("{{\"kind\":\"{RECOVER_PLUGIN}\"}}"),
        _ => format!("{{\"kind\":\"plugin\",\"plugin\":\"{RECOVER_PLUGIN}\"}}"),
    };
    let mut body = String::new();
    write_js_string(&mut body, &format!("{NOTE_MARK} {text}"));
    let content = format!("[{{\"type\":\"text\",\"text\":{body}}}]");
    let data =
        crate::heal::user_message(era, &format!("{RECOVER_PLUGIN}-{seq}"), &content, &source);
    format!(
        "{{\"type\":\"user/message\",\"seq\":{seq},\"time\":{time},\"data\":{data},\"surfaceOp\":\"append\"}}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_a_user_message_of_the_generation() {
        assert_eq!(
            note_record(Era::Head, 7, 100, "From s-1."),
            r#"{"type":"user/message","seq":7,"time":100,"data":{"content":[{"type":"text","text":"[dsh-session recover] From s-1."}],"source":{"kind":"plugin","plugin":"dsh-session-recover"},"role":"user","id":"dsh-session-recover-7"},"surfaceOp":"append"}"#
        );
        // DSH's message constructor writes `content, source, role, id` in every generation
        // (issue 44.6: v0 notes were `id, role, content, source`, v3 ones DSH's order).
        assert_eq!(
            note_record(Era::V3, 7, 100, "From s-1."),
            note_record(Era::Head, 7, 100, "From s-1.")
        );
        assert!(
            note_record(Era::V4, 7, 100, "x")
                .contains(r#""source":{"kind":"dsh-session-recover"},"role":"user""#)
        );
    }
}
