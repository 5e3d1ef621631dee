//! The first turn's readiness barrier: one per extension
//! instance, holding a turn that arrives before the `session_start` that
//! registers the tools has ended.
//!
//! The barrier is a sequence of *generations*, each standing for one readiness
//! promise of the 0.4.0 design. It is armed at construction. Each
//! `session_start` arms a fresh generation unless a turn is parked on the current,
//! unreleased one, which it then adopts, and takes a ticket that it
//! hands back on every exit path. A ticket releases the generation it
//! began on, except when that generation is still current and a newer
//! `session_start` adopted it: then only the newest invocation releases it,
//! so a stale start never releases a turn parked for a newer session.
//!
//! Pure: a parked turn is a waiter of any type `W` (the napi adapter's is the
//! settling end of the turn's promise), handed back when its generation is
//! released ([`ReadinessBarrier::close_ticket`]) or when its cap expires
//! ([`expire`]), never both. The cap runs on tokio's clock, which never
//! keeps the host's event loop alive.

use std::time::Duration;

/// One parked turn: its id, the generation it waits on, and its waiter.
#[derive(Debug)]
struct Parked<W> {
    id: u64,
    generation: u64,
    waiter: W,
}

/// The barrier of one instance: which generation is current, which is released,
/// which `session_start` invocations are open and which turns wait.
#[derive(Debug)]
pub struct ReadinessBarrier<W> {
    /// The current generation: the one a turn parks on.
    generation: u64,
    /// The newest generation released; every generation up to it is released.
    released: u64,
    /// The ticket of the newest `session_start` invocation.
    newest: u32,
    /// The open invocations: each ticket with the generation it began on.
    open: Vec<(u32, u64)>,
    /// The turns waiting, none of them on a released generation.
    parked: Vec<Parked<W>>,
    /// The id of the next parked turn.
    next_id: u64,
}

impl<W> Default for ReadinessBarrier<W> {
    /// Armed at construction, so a turn that arrives before the first
    /// `session_start` waits for it.
    fn default() -> Self {
        Self {
            generation: 1,
            released: 0,
            newest: 0,
            open: Vec::new(),
            parked: Vec::new(),
            next_id: 1,
        }
    }
}

impl<W> ReadinessBarrier<W> {
    /// Whether the current generation is released.
    pub fn is_settled(&self) -> bool {
        self.released >= self.generation
    }

    /// True while a turn waits on the current, unreleased generation.
    pub fn has_parked_turn(&self) -> bool {
        !self.is_settled()
            && self
                .parked
                .iter()
                .any(|turn| turn.generation == self.generation)
    }

    /// A `session_start` begins. Arms a fresh generation unless a turn
    /// is parked on the current one (adopted), and returns this invocation's
    /// ticket for [`Self::close_ticket`].
    pub fn open_ticket(&mut self) -> u32 {
        if !self.has_parked_turn() {
            self.generation += 1;
        }
        self.newest = self.newest.wrapping_add(1);
        self.open.push((self.newest, self.generation));
        self.newest
    }

    /// The invocation with `ticket` ended (on any exit path). Returns
    /// the waiters of the turns it released: none for an unknown or
    /// already-ended ticket, or for a stale invocation whose generation a newer
    /// one adopted.
    pub fn close_ticket(&mut self, ticket: u32) -> Vec<W> {
        let Some(at) = self.open.iter().position(|&(open, _)| open == ticket) else {
            return Vec::new();
        };
        let (invocation, generation) = self.open.swap_remove(at);
        if generation == self.generation && invocation != self.newest {
            return Vec::new();
        }
        self.released = self.released.max(generation);
        let released = self.released;
        let (done, waiting) = std::mem::take(&mut self.parked)
            .into_iter()
            .partition(|turn| turn.generation <= released);
        self.parked = waiting;
        done.into_iter()
            .map(|turn: Parked<W>| turn.waiter)
            .collect()
    }

    /// A turn starts waiting. `Err(waiter)` when the current generation is
    /// released already (the turn does not wait); otherwise the turn's id,
    /// for [`Self::give_up`].
    pub fn park(&mut self, waiter: W) -> Result<u64, W> {
        if self.is_settled() {
            return Err(waiter);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.parked.push(Parked {
            id,
            generation: self.generation,
            waiter,
        });
        Ok(id)
    }

    /// The turn with `id` stops waiting (its cap expired): its
    /// waiter, or `None` when a release already handed it back. A turn that
    /// gave up is no longer parked, so the next `session_start` arms a fresh
    /// generation.
    pub fn give_up(&mut self, id: u64) -> Option<W> {
        let at = self.parked.iter().position(|turn| turn.id == id)?;
        Some(self.parked.swap_remove(at).waiter)
    }
}

/// The cap of a parked turn: after `cap`, `give_up` takes the turn out of
/// its barrier ([`ReadinessBarrier::give_up`]) and its waiter is returned, or
/// `None` when it was released first.
pub async fn expire<W>(cap: Duration, give_up: impl FnOnce() -> Option<W>) -> Option<W> {
    tokio::time::sleep(cap).await;
    give_up()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sync::lock;
    use std::sync::Mutex;

    type Barrier = ReadinessBarrier<&'static str>;

    #[test]
    fn ses_3_a_turn_before_the_first_session_start_is_held_until_it_ends() {
        let mut barrier = Barrier::default();
        assert!(!barrier.is_settled(), "armed at construction");
        assert!(barrier.park("turn").is_ok(), "the turn waits");
        assert!(barrier.has_parked_turn());
        let ticket = barrier.open_ticket();
        assert_eq!(barrier.close_ticket(ticket), ["turn"]);
        assert!(barrier.is_settled());
        assert_eq!(
            barrier.park("later"),
            Err("later"),
            "a later turn does not wait"
        );
    }

    /// Session A begins, a turn parks on A's generation, session C begins and
    /// adopts it: the barrier with A's and C's tickets.
    fn adopted_by_c() -> (Barrier, u32, u32) {
        let mut barrier = Barrier::default();
        let a = barrier.open_ticket();
        barrier.park("turn").unwrap();
        let c = barrier.open_ticket();
        (barrier, a, c)
    }

    #[test]
    fn ses_4_a_session_start_adopts_the_epoch_a_turn_is_parked_on() {
        let (mut barrier, a, c) = adopted_by_c();
        assert!(barrier.has_parked_turn(), "SES-6: the turn is still parked");
        assert_eq!(barrier.close_ticket(c), ["turn"], "C releases it");
        assert!(
            barrier.close_ticket(a).is_empty(),
            "A, ending later, changes nothing"
        );
        assert!(barrier.is_settled());
    }

    #[test]
    fn ses_4_without_a_parked_turn_a_session_start_arms_a_fresh_epoch() {
        let mut barrier = Barrier::default();
        let first = barrier.open_ticket();
        barrier.close_ticket(first);
        assert!(barrier.is_settled());
        barrier.open_ticket();
        assert!(!barrier.is_settled(), "re-armed for the new session");
        let mut gave_up = Barrier::default();
        let id = gave_up.park("capped").unwrap();
        assert_eq!(gave_up.give_up(id), Some("capped"));
        assert!(
            !gave_up.has_parked_turn(),
            "a capped turn is parked no more"
        );
        gave_up.open_ticket();
        assert!(!gave_up.has_parked_turn(), "nothing to adopt");
    }

    #[test]
    fn ses_5_a_stale_start_never_releases_a_turn_parked_for_a_newer_session() {
        // Adopted: the turn parks on A's generation, C adopts it, A ends first.
        let (mut barrier, a, c) = adopted_by_c();
        assert!(barrier.close_ticket(a).is_empty(), "the superseded A");
        assert!(barrier.has_parked_turn(), "the turn stays parked");
        assert_eq!(barrier.close_ticket(c), ["turn"], "released by C");
        // Fresh: A, then B and C each arm their own; the turn parks on C's.
        let mut barrier = Barrier::default();
        let a = barrier.open_ticket();
        let b = barrier.open_ticket();
        barrier.close_ticket(b);
        let c = barrier.open_ticket();
        barrier.park("turn").unwrap();
        assert!(
            barrier.close_ticket(a).is_empty(),
            "A releases only its own generation"
        );
        assert!(
            barrier.has_parked_turn(),
            "the turn parked on C stays parked"
        );
        assert_eq!(barrier.close_ticket(c), ["turn"]);
    }

    #[test]
    fn ses_5_each_ticket_ends_once_and_each_turn_is_handed_back_once() {
        let mut barrier = Barrier::default();
        let a = barrier.open_ticket();
        let id = barrier.park("turn").unwrap();
        assert_eq!(barrier.close_ticket(a), ["turn"]);
        assert!(barrier.close_ticket(a).is_empty(), "already ended");
        assert!(barrier.close_ticket(a + 7).is_empty(), "never issued");
        assert_eq!(
            barrier.give_up(id),
            None,
            "released, so the cap finds nothing"
        );
    }

    #[tokio::test]
    async fn ses_11_the_cap_hands_back_a_turn_still_parked_and_only_after_the_cap() {
        let barrier = Mutex::new(Barrier::default());
        let id = lock(&barrier).park("turn").unwrap();
        let started = std::time::Instant::now();
        let cap = Duration::from_millis(150);
        assert_eq!(
            expire(cap, || lock(&barrier).give_up(id)).await,
            Some("turn")
        );
        assert!(started.elapsed() >= cap);
        assert!(
            !lock(&barrier).has_parked_turn(),
            "SES-4: nothing left to adopt"
        );
    }

    #[tokio::test]
    async fn ses_11_a_turn_released_before_its_cap_is_not_capped() {
        let barrier = Mutex::new(Barrier::default());
        let ticket = lock(&barrier).open_ticket();
        let id = lock(&barrier).park("turn").unwrap();
        let capping = expire(Duration::from_millis(100), || lock(&barrier).give_up(id));
        assert_eq!(lock(&barrier).close_ticket(ticket), ["turn"]);
        assert_eq!(capping.await, None);
    }
}
