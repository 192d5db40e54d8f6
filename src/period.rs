//! A period of time (ms since the Unix epoch) as `--since` and `--until` ask for one, and
//! as a price is valid for one. The times themselves are read by [`crate::stats::when`].

/// A period of time, ms since the Unix epoch: from `since` (included) to `until`
/// (excluded), open at an end that is `None`. What `--since` and `--until` ask for (stats,
/// search, the sessions listed) and when a price is valid.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Period {
    /// The start.
    pub since: Option<i64>,
    /// The end.
    pub until: Option<i64>,
}

impl Period {
    /// No bound: every time.
    pub fn is_all(&self) -> bool {
        self.since.is_none() && self.until.is_none()
    }

    /// Whether `time` falls in the period; a time not known falls only in [`Period::is_all`].
    pub fn contains(&self, time: Option<i64>) -> bool {
        match time {
            Some(t) => self.since.is_none_or(|s| t >= s) && self.until.is_none_or(|u| t < u),
            None => self.is_all(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Period;

    #[test]
    fn a_period_holds_its_start_not_its_end_and_an_unknown_time_only_when_unbounded() {
        let june = Period {
            since: Some(100),
            until: Some(200),
        };
        let held: Vec<bool> = [Some(99), Some(100), Some(199), Some(200), None]
            .into_iter()
            .map(|t| june.contains(t))
            .collect();
        assert_eq!(held, [false, true, true, false, false]);
        let from = Period {
            since: Some(100),
            until: None,
        };
        assert!(from.contains(Some(i64::MAX)) && !from.contains(None));
        assert!(Period::default().contains(None) && Period::default().contains(Some(i64::MIN)));
        assert!(Period::default().is_all() && !from.is_all());
    }
}
