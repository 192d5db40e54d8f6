#![no_main]
//! cargo fuzz run varint — see dsh_session::fuzz::varint.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dsh_session::fuzz::varint(data));
