#![no_main]
//! cargo fuzz run zstd_frames — see dsh_session::fuzz::zstd_frames.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dsh_session::fuzz::zstd_frames(data));
