#![no_main]
//! cargo fuzz run repair_plan — see dsh_session::fuzz::repair_plan.
libfuzzer_sys::fuzz_target!(|data: &[u8]| dsh_session::fuzz::repair_plan(data));
