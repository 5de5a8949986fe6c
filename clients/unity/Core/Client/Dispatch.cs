// Where the client's callbacks run: the Editor's main thread in Unity, a test thread here.
using System;
using System.Collections.Generic;
using System.Threading;

namespace Codiva.Client
{
    public interface IDispatcher
    {
        /// Runs `action` later on the dispatcher's thread, in posting order; never blocks.
        void Post(Action action);
    }

    /// A dispatcher with its own thread (tests, and hosts without a main loop).
    public sealed class ThreadDispatcher : IDispatcher, IDisposable
    {
        readonly Queue<KeyValuePair<Action, bool>> queue = new Queue<KeyValuePair<Action, bool>>();
        readonly Thread thread;
        readonly object gate = new object();
        bool stopping;
        long executed;

        /// An exception a posted action threw (the first one), for a test to report.
        public Exception Failure { get; private set; }

        public ThreadDispatcher(string name = "codiva-main")
        {
            thread = new Thread(Run) { IsBackground = true, Name = name };
            thread.Start();
        }

        public bool IsCurrent => Thread.CurrentThread == thread;

        public void Post(Action action) => Enqueue(action, false);

        void Enqueue(Action action, bool probe)
        {
            lock (gate)
            {
                queue.Enqueue(new KeyValuePair<Action, bool>(action, probe));
                Monitor.PulseAll(gate);
            }
        }

        void Run()
        {
            while (true)
            {
                KeyValuePair<Action, bool> next;
                lock (gate)
                {
                    while (queue.Count == 0 && !stopping) Monitor.Wait(gate);
                    if (queue.Count == 0) return;
                    next = queue.Dequeue();
                }
                try { next.Key(); }
                catch (Exception error) { if (Failure == null) Failure = error; }
                if (next.Value) continue;
                lock (gate)
                {
                    executed++;
                    Monitor.PulseAll(gate);
                }
            }
        }

        /// Runs `func` on the dispatcher thread and returns its value (blocks the calling thread:
        /// for tests and shutdown only, never from the dispatcher thread itself).
        public T Invoke<T>(Func<T> func)
        {
            if (IsCurrent) return func();
            var done = new ManualResetEventSlim();
            T value = default(T);
            Exception error = null;
            Enqueue(() =>
            {
                try { value = func(); }
                catch (Exception e) { error = e; }
                finally { done.Set(); }
            }, true);
            done.Wait();
            if (error != null) throw new InvalidOperationException("dispatched call failed", error);
            return value;
        }

        /// Waits until `condition` (evaluated on the dispatcher thread after each action) holds;
        /// false after `limit` (a bound against hanging, not a timing expectation).
        public bool WaitUntil(Func<bool> condition, TimeSpan limit)
        {
            var deadline = DateTime.UtcNow + limit;
            while (true)
            {
                long seen;
                lock (gate) seen = executed;
                if (Invoke(condition)) return true;
                lock (gate)
                {
                    while (executed == seen && DateTime.UtcNow < deadline)
                        Monitor.Wait(gate, TimeSpan.FromTicks(Math.Max(0, (deadline - DateTime.UtcNow).Ticks)));
                }
                if (DateTime.UtcNow >= deadline) return Invoke(condition);
            }
        }

        public void Dispose()
        {
            lock (gate)
            {
                stopping = true;
                Monitor.PulseAll(gate);
            }
            if (!IsCurrent) thread.Join();
        }
    }

    /// Reconnect delays: doubling from `Initial` up to `Max`; `Reset` after a good connection.
    public sealed class Backoff
    {
        public TimeSpan Initial = TimeSpan.FromMilliseconds(250);
        public TimeSpan Max = TimeSpan.FromSeconds(10);
        int attempt;

        public TimeSpan Next()
        {
            var ms = Initial.TotalMilliseconds * Math.Pow(2, Math.Min(attempt, 30));
            attempt++;
            return TimeSpan.FromMilliseconds(Math.Min(ms, Max.TotalMilliseconds));
        }

        public void Reset() { attempt = 0; }
    }
}
