#![no_main]
//! cargo fuzz run fold — see dsh_session::fuzz::fold.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dsh_session::fuzz::fold(data));
