//! Times given on the command line (`--since`, `--until`, `--now`, and the search and MCP
//! bounds), in ms since the Unix epoch.

use crate::period::Period;

/// Why a time given to a flag was not read.
#[derive(Debug, thiserror::Error)]
pub enum WhenError {
    /// Neither a date, a date and time, nor a time with an offset.
    #[error(
        "{flag} {text:?}: not a date (2026-11-30), a date and time (2026-11-30T14:00) or a time with an offset (2026-11-30T14:00:00Z)"
    )]
    NotATime {
        /// The flag, e.g. `--since`.
        flag: String,
        /// What was given.
        text: String,
    },
    /// A civil time that does not exist in the zone, or is out of range there.
    #[error("{flag} {text:?}")]
    InZone {
        /// The flag, e.g. `--since`.
        flag: String,
        /// What was given.
        text: String,
        /// Why, in jiff's words.
        #[source]
        source: jiff::Error,
    },
    /// A date with no next day.
    #[error(transparent)]
    Range(#[from] jiff::Error),
}

/// The time zone named `name` (an IANA name, as `--tz` takes it). UTC, the flags' default,
/// without reading the system's zone database: jiff lists every folder of
/// /usr/share/zoneinfo on its first look-up, a few ms at the start of every command.
///
/// # Errors
/// A name the zone database does not hold.
pub fn zone(name: &str) -> Result<jiff::tz::TimeZone, jiff::Error> {
    if name == "UTC" {
        return Ok(jiff::tz::TimeZone::UTC);
    }
    jiff::tz::TimeZone::get(name)
}

/// The period `since` and `until` ask for (`--since`, `--until` or the MCP tools' bounds,
/// named in an error by `flags`), each read by [`parse_when`] in `tz`; a date given to
/// `until` includes that whole day.
///
/// # Errors
/// [`WhenError`]: either is not a time, or not one in `tz`.
pub fn parse_period(
    since: Option<&str>,
    until: Option<&str>,
    flags: [&str; 2],
    tz: &jiff::tz::TimeZone,
) -> Result<Period, WhenError> {
    Ok(Period {
        since: since
            .map(|t| parse_when(flags[0], t, tz, false))
            .transpose()?,
        until: until
            .map(|t| parse_when(flags[1], t, tz, true))
            .transpose()?,
    })
}

/// A time given to `flag`, in ms since the Unix epoch: an RFC 3339 time with an offset,
/// or a date or a date and time in `tz`. With `end_of_day`, a date stands for the first
/// moment of the next day (`--until`'s date is included).
///
/// # Errors
/// [`WhenError`]: not a time, or not one in `tz`.
pub fn parse_when(
    flag: &str,
    text: &str,
    tz: &jiff::tz::TimeZone,
    end_of_day: bool,
) -> Result<i64, WhenError> {
    if let Ok(at) = text.parse::<jiff::Timestamp>() {
        return Ok(at.as_millisecond());
    }
    let civil = if let Ok(date) = text.parse::<jiff::civil::Date>() {
        let date = if end_of_day { date.tomorrow()? } else { date };
        date.to_datetime(jiff::civil::Time::midnight())
    } else if let Ok(at) = text.parse::<jiff::civil::DateTime>() {
        at
    } else {
        return Err(WhenError::NotATime {
            flag: flag.to_owned(),
            text: text.to_owned(),
        });
    };
    tz.to_timestamp(civil)
        .map(|at| at.as_millisecond())
        .map_err(|source| WhenError::InZone {
            flag: flag.to_owned(),
            text: text.to_owned(),
            source,
        })
}
