// Core's dispatcher on the Editor's main thread: posted actions run from EditorApplication.update.
using System;
using System.Collections.Concurrent;
using Codiva.Client;
using UnityEditor;

namespace Codiva.Editor
{
    public sealed class EditorDispatcher : IDispatcher, IDisposable
    {
        readonly ConcurrentQueue<Action> queue = new ConcurrentQueue<Action>();

        public EditorDispatcher() { EditorApplication.update += Drain; }

        public void Post(Action action) => queue.Enqueue(action);

        void Drain()
        {
            Action action;
            while (queue.TryDequeue(out action))
            {
                try { action(); }
                catch (Exception error) { UnityEngine.Debug.LogException(error); }
            }
        }

        public void Dispose() { EditorApplication.update -= Drain; }
    }
}
