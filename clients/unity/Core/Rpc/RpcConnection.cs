// JSON-RPC 2.0 over a line transport: requests with ids, their answers matched by id (in any
// order), notifications handed on in arrival order. One reader thread per connection.
using System;
using System.Collections.Generic;
using System.IO;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using Codiva.Json;
using Codiva.Protocol;

namespace Codiva.Rpc
{
    /// An error answer (`ErrorBody`), or the connection lost before the answer came (`Code` 0).
    public sealed class RpcException : Exception
    {
        public readonly long Code;
        public readonly object ErrorData;
        public RpcException(long code, string message, object data) : base(message) { Code = code; ErrorData = data; }

        /// A refusal's stable reason (`still_working`, `no_pending_prompt`, …), if any.
        public string Reason => JsonRead.Str(ErrorData, "reason");
        public bool ConnectionLost => Code == 0;
    }

    public sealed class RpcConnection : IDisposable
    {
        const int MaxLine = 64 * 1024 * 1024;

        readonly ITransport transport;
        readonly object writeLock = new object();
        readonly Dictionary<long, TaskCompletionSource<object>> pending = new Dictionary<long, TaskCompletionSource<object>>();
        /// Callbacks run on the reading thread when their answer is read (`CallInOrder`).
        readonly Dictionary<long, Action<object>> inOrder = new Dictionary<long, Action<object>>();
        readonly Thread reader;
        long nextId;
        volatile bool closed;

        /// Called on the reader thread, in arrival order: (method, params).
        public event Action<string, object> Notification;
        /// Called once on the reader thread when the stream ends or fails.
        public event Action<Exception> Closed;
        /// A line that is not JSON (skipped; the connection reads on), on the reader thread.
        public event Action<string> Unreadable;

        public RpcConnection(ITransport transport)
        {
            this.transport = transport;
            reader = new Thread(ReadLoop) { IsBackground = true, Name = "codiva-rpc-reader" };
        }

        public string Describe => transport.Describe;

        /// Starts reading (after the handlers are attached).
        public void Start() => reader.Start();

        public async Task<TResult> Call<TParams, TResult>(Method<TParams, TResult> method, TParams parameters)
        {
            var raw = await CallRaw(method.Name, Wire.ToJson(parameters) ?? new Dictionary<string, object>()).ConfigureAwait(false);
            return Wire.FromJson<TResult>(raw ?? new Dictionary<string, object>());
        }

        /// Like `Call`, but `answered` runs on the reading thread as the answer is read, before
        /// any later line is handled: what it posts to a dispatcher is queued before what the
        /// notifications after the answer post (a `session/snapshot` is applied before the events
        /// that follow it). Not called when the request fails (the task says why).
        public Task<object> CallInOrder<TParams, TResult>(Method<TParams, TResult> method, TParams parameters, Action<TResult> answered) =>
            CallRaw(method.Name, Wire.ToJson(parameters) ?? new Dictionary<string, object>(),
                raw => answered(Wire.FromJson<TResult>(raw ?? new Dictionary<string, object>())));

        public Task<object> CallRaw(string method, object parameters, Action<object> onReader = null)
        {
            var completion = new TaskCompletionSource<object>(TaskCreationOptions.RunContinuationsAsynchronously);
            long id;
            lock (pending)
            {
                if (closed) { completion.SetException(Lost(null)); return completion.Task; }
                id = ++nextId;
                pending[id] = completion;
                if (onReader != null) inOrder[id] = onReader;
            }
            var message = new Dictionary<string, object> { { "jsonrpc", "2.0" }, { "id", id }, { "method", method }, { "params", parameters } };
            try { WriteLine(JsonText.Write(message)); }
            catch (Exception error)
            {
                lock (pending) { pending.Remove(id); inOrder.Remove(id); }
                completion.TrySetException(Lost(error));
            }
            return completion.Task;
        }

        static RpcException Lost(Exception cause) =>
            new RpcException(0, "the connection to codiva was lost" + (cause == null ? "" : ": " + cause.Message), null);

        void WriteLine(string line)
        {
            var bytes = Encoding.UTF8.GetBytes(line + "\n");
            lock (writeLock)
            {
                transport.Output.Write(bytes, 0, bytes.Length);
                transport.Output.Flush();
            }
        }

        void ReadLoop()
        {
            Exception failure = null;
            try
            {
                var buffer = new byte[64 * 1024];
                var line = new MemoryStream();
                while (true)
                {
                    var read = transport.Input.Read(buffer, 0, buffer.Length);
                    if (read <= 0) break;
                    var start = 0;
                    for (var i = 0; i < read; i++)
                    {
                        if (buffer[i] != (byte)'\n') continue;
                        line.Write(buffer, start, i - start);
                        start = i + 1;
                        HandleLine(Encoding.UTF8.GetString(line.GetBuffer(), 0, (int)line.Length));
                        line.SetLength(0);
                    }
                    line.Write(buffer, start, read - start);
                    if (line.Length > MaxLine) throw new IOException("a line from codiva exceeds " + MaxLine + " bytes");
                }
            }
            catch (Exception error) { failure = error; }
            Shutdown(failure);
        }

        void HandleLine(string line)
        {
            if (line.Trim().Length == 0) return;
            object message;
            try { message = JsonText.Parse(line); }
            catch (JsonException unreadable)
            {
                Unreadable?.Invoke(unreadable.Message);
                return;
            }
            var method = JsonRead.Str(message, "method");
            if (method != null)
            {
                Notification?.Invoke(method, JsonRead.Get(message, "params"));
                return;
            }
            var id = JsonRead.Long(message, "id");
            if (id == null) return;
            TaskCompletionSource<object> completion;
            Action<object> onReader;
            lock (pending)
            {
                if (!pending.TryGetValue(id.Value, out completion)) return;
                pending.Remove(id.Value);
                if (inOrder.TryGetValue(id.Value, out onReader)) inOrder.Remove(id.Value);
            }
            var error = JsonRead.Get(message, "error");
            if (error != null)
            {
                completion.TrySetException(new RpcException(JsonRead.Long(error, "code") ?? -1, JsonRead.Str(error, "message"), JsonRead.Get(error, "data")));
            }
            else
            {
                var result = JsonRead.Get(message, "result");
                if (onReader != null)
                {
                    try { onReader(result); }
                    catch (Exception failed) { completion.TrySetException(failed); return; }
                }
                completion.TrySetResult(result);
            }
        }

        void Shutdown(Exception cause)
        {
            List<TaskCompletionSource<object>> orphans;
            lock (pending)
            {
                if (closed) return;
                closed = true;
                orphans = new List<TaskCompletionSource<object>>(pending.Values);
                pending.Clear();
                inOrder.Clear();
            }
            foreach (var orphan in orphans) orphan.TrySetException(Lost(cause));
            Closed?.Invoke(cause);
        }

        /// Closes the transport; the reader sees the end and fails what is still pending.
        public void Dispose()
        {
            transport.Dispose();
            Shutdown(null);
        }
    }
}
