//! A view wrapper that stops at a damaged log's defect (`export`, the site export).

use crate::replay::{Keep, Replay, SurfaceChange};
use crate::scan::report::Report;
use crate::view::{Checked, PackedChunks, View};

/// A view that sees the events up to the first one the fold did not take (a corrupt or
/// refused log's defect), as `stats` counts a log ([`crate::view::usage::UsageView`]):
/// the header, the turns and their counts are what the transcript shows, never events read
/// past the defect.
pub struct UpToDefect<V> {
    /// The wrapped view.
    pub view: V,
    stopped: bool,
}

impl<V: View> UpToDefect<V> {
    /// Wraps `view`.
    pub fn new(view: V) -> Self {
        UpToDefect {
            view,
            stopped: false,
        }
    }
}

impl<V: View> View for UpToDefect<V> {
    fn keeps(&self) -> Keep {
        self.view.keeps()
    }

    fn on_surface(&mut self, change: &SurfaceChange<'_>) {
        if !self.stopped {
            self.view.on_surface(change);
        }
    }

    fn needs_closed_history(&self) -> bool {
        self.view.needs_closed_history()
    }

    fn on_closed_history(&mut self, replay: &Replay) {
        self.view.on_closed_history(replay);
    }

    fn on_event(&mut self, event: &Checked<'_, '_>) {
        self.stopped |= !event.folded;
        if !self.stopped {
            self.view.on_event(event);
        }
    }

    fn on_packed_chunks(&mut self, chunks: &PackedChunks<'_>) {
        self.stopped |= !chunks.folded;
        if !self.stopped {
            self.view.on_packed_chunks(chunks);
        }
    }

    fn finish(&mut self, report: &mut Report) {
        self.view.finish(report);
    }
}
