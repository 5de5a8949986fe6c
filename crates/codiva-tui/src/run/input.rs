//! Terminal input that is asked for only when there may be some.
//!
//! crossterm's `EventStream` checks for input on every poll with a zero timeout on the lock of
//! its event reader — which its own waiting thread holds while it waits for input. With
//! parking_lot, a zero-timeout lock attempt on a held lock spins and yields the thread (~10
//! `sched_yield`s) before it gives up, and the event loop polls every branch each time it
//! wakes: every streamed batch and every frame paid for it (a twentieth of the UI's CPU while a
//! reply streamed, docs/performance.md). [`Input`] polls the stream once, then again only after
//! the stream's waker fired — the waiting thread wakes it exactly when input is ready (or the
//! stream is dropped).

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};

use futures_util::Stream;
use futures_util::task::AtomicWaker;

/// A stream polled only when woken (see the module docs).
pub(super) struct Input<S> {
    inner: S,
    signal: Arc<Signal>,
    waker: Waker,
}

/// Set by the inner stream's waker; forwards the wake to the task polling [`Input`].
struct Signal {
    woken: AtomicBool,
    task: AtomicWaker,
}

impl Wake for Signal {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.woken.store(true, Ordering::Release);
        self.task.wake();
    }
}

impl<S> Input<S> {
    pub(super) fn new(inner: S) -> Self {
        let signal = Arc::new(Signal {
            // The first poll asks the stream.
            woken: AtomicBool::new(true),
            task: AtomicWaker::new(),
        });
        Input {
            inner,
            waker: Waker::from(signal.clone()),
            signal,
        }
    }
}

impl<S: Stream + Unpin> Stream for Input<S> {
    type Item = S::Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<S::Item>> {
        let this = &mut *self;
        this.signal.task.register(cx.waker());
        if !this.signal.woken.swap(false, Ordering::AcqRel) {
            return Poll::Pending;
        }
        let mut inner_cx = Context::from_waker(&this.waker);
        let polled = Pin::new(&mut this.inner).poll_next(&mut inner_cx);
        if polled.is_ready() {
            // There may be more: ask again on the next poll.
            this.signal.woken.store(true, Ordering::Release);
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use std::sync::atomic::AtomicUsize;

    /// A stream that counts its polls and is ready when `ready` holds items; it wakes the
    /// waker it saw last when an item is pushed.
    #[derive(Default)]
    struct Probe {
        polls: Arc<AtomicUsize>,
        ready: Arc<std::sync::Mutex<(Vec<u32>, Option<Waker>)>>,
    }

    impl Stream for Probe {
        type Item = u32;
        fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<u32>> {
            self.polls.fetch_add(1, Ordering::SeqCst);
            let mut ready = self.ready.lock().unwrap();
            match ready.0.pop() {
                Some(item) => Poll::Ready(Some(item)),
                None => {
                    ready.1 = Some(cx.waker().clone());
                    Poll::Pending
                }
            }
        }
    }

    #[tokio::test]
    async fn the_stream_is_asked_again_only_after_its_waker_fired() {
        let probe = Probe::default();
        let polls = probe.polls.clone();
        let ready = probe.ready.clone();
        let mut input = Input::new(probe);
        let waker = futures_util::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        assert!(input.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        // The loop wakes for other reasons: the stream is not asked.
        for _ in 0..5 {
            assert!(input.poll_next_unpin(&mut cx).is_pending());
        }
        assert_eq!(polls.load(Ordering::SeqCst), 1);
        // Input arrives: the stream's waker fires, and the next poll takes it.
        let stream_waker = {
            let mut ready = ready.lock().unwrap();
            ready.0.extend([2, 1]);
            ready.1.take().unwrap()
        };
        stream_waker.wake();
        assert_eq!(input.poll_next_unpin(&mut cx), Poll::Ready(Some(1)));
        // After an item the stream is asked again (more may be buffered).
        assert_eq!(input.poll_next_unpin(&mut cx), Poll::Ready(Some(2)));
        // The poll after the last item finds it dry; the ones after that do not ask.
        assert!(input.poll_next_unpin(&mut cx).is_pending());
        assert!(input.poll_next_unpin(&mut cx).is_pending());
        assert_eq!(polls.load(Ordering::SeqCst), 4);
    }

    #[tokio::test]
    async fn the_task_is_woken_when_the_stream_wakes() {
        let probe = Probe::default();
        let ready = probe.ready.clone();
        let mut input = Input::new(probe);
        let push = tokio::spawn(async move {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            let waker = {
                let mut ready = ready.lock().unwrap();
                ready.0.push(7);
                ready.1.take()
            };
            waker.expect("the stream was polled").wake();
        });
        let item = tokio::time::timeout(std::time::Duration::from_secs(10), input.next()).await;
        assert_eq!(item.expect("woken"), Some(7));
        push.await.unwrap();
    }
}
