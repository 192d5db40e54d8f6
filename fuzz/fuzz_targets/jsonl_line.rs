#![no_main]
//! cargo fuzz run jsonl_line — see dsh_session::fuzz::jsonl_line.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dsh_session::fuzz::jsonl_line(data));
