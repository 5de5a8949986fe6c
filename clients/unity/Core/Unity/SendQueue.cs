// Messages sent while Unity compiles wait, and go once it is done. A compile ends in a domain
// reload, which drops the panel's connection to codiva: a message sent into it could be lost with
// the connection, and the agent would act on a project about to change under it. So the panel's
// sends go through this queue: while Unity compiles (ICompileState — the Editor binds
// `EditorApplication.isCompiling`), while the client is not connected, or while earlier messages
// wait, a message is queued; the queue is a file written atomically (AtomicFile) at each change,
// so it outlives the domain reload; after it (and a reconnect), `Pump` sends the queued messages
// one at a time, in order, each after the previous one was answered.
//
// A message is removed from the file when codiva answered it. One that codiva refused is given
// back to the user with the reason (`Returned`). One that was on its way when the connection or
// the Editor's domain went away may or may not have reached codiva: it is never sent again by
// itself (that could send it twice) but given back to the user as "perhaps not sent". All of it
// runs on the Editor's thread (the channel's callbacks come on the client's dispatcher).
using System;
using System.Collections.Generic;
using Codiva.Client;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;

namespace Codiva.Unity
{
    /// Whether Unity compiles scripts now (the Editor: `EditorApplication.isCompiling`).
    public interface ICompileState
    {
        bool IsCompiling { get; }
    }

    /// Where the queue's messages go: codiva's `session/send` (the Editor: the client's request).
    public interface ISendChannel
    {
        bool Connected { get; }
        /// Sends `message`; exactly one of `answered` and `failed` is called, on the panel's thread.
        void Send(SendParams message, Action answered, Action<RpcException> failed);
    }

    public enum SendOutcome { Sent, Queued }

    /// A message given back to the user.
    public sealed class ReturnedSend
    {
        public string SessionId;
        public string Text;
        public int Images;
        /// True: it may have reached codiva (it was on its way when the connection went).
        public bool Uncertain;
        /// codiva's reason for a refusal (its message).
        public string Reason;

        /// One line for the panel (escaped).
        public string Rich(Language language)
        {
            var line = Words.OneLine(Text, 120);
            return RichText.Escape(Uncertain
                ? Strings.Format(Str.SendUncertain, language, line)
                : Strings.Format(Str.SendNotSent, language, line, Words.OneLine(Reason, 200)));
        }
    }

    public sealed class SendQueue
    {
        /// The most messages kept waiting; one more is refused (given back at once).
        public const int MaxQueued = 20;

        sealed class Entry
        {
            public string Id;
            public string SessionId;
            public string Text;
            public List<ImageInput> Images;
            /// Written before it is sent: true in the file means it was on its way.
            public bool Sending;
        }

        readonly string file;
        readonly ISendChannel channel;
        readonly ICompileState compile;
        readonly List<Entry> entries = new List<Entry>();
        readonly List<ReturnedSend> returned = new List<ReturnedSend>();
        Entry inFlight;

        /// Something the panel shows changed (the count waiting, a message given back).
        public event Action Changed;

        /// Reads the queue `file` left (a domain reload ago): its messages wait again, and one
        /// that was on its way is given back as perhaps not sent. An unreadable file is set aside
        /// (`Problem` says so) and nothing of it is sent.
        public SendQueue(string file, ISendChannel channel, ICompileState compile)
        {
            this.file = file;
            this.channel = channel;
            this.compile = compile;
            Load();
        }

        /// How many messages wait (the one on its way included).
        public int Waiting => entries.Count;

        /// Messages given back to the user, oldest first (the panel shows them until Dismiss).
        public IReadOnlyList<ReturnedSend> Returned => returned;

        /// Why the file left by the last domain could not be read (English, for the log); null.
        public string Problem { get; private set; }

        /// `N waiting until Unity finishes compiling` (escaped); "" when none wait.
        public string WaitingRich(Language language) => entries.Count == 0 ? "" : RichText.Escape(Strings.Format(Str.SendsQueued, language, entries.Count));

        public void Dismiss()
        {
            returned.Clear();
            Changed?.Invoke();
        }

        /// The user's message: sent now when nothing holds it, else queued behind the others.
        public SendOutcome Send(string sessionId, string text, List<ImageInput> images = null)
        {
            var entry = new Entry
            {
                Id = Guid.NewGuid().ToString("N"),
                SessionId = sessionId,
                Text = text ?? "",
                Images = images == null || images.Count == 0 ? null : new List<ImageInput>(images),
            };
            if (entries.Count == 0 && !compile.IsCompiling && channel.Connected)
            {
                channel.Send(Params(entry), () => { }, error => GiveBack(entry, error));
                return SendOutcome.Sent;
            }
            if (entries.Count >= MaxQueued)
            {
                GiveBack(entry, new RpcException(-1, "too many messages wait for the compile (" + MaxQueued + ")", null));
                return SendOutcome.Queued;
            }
            entries.Add(entry);
            Save();
            Changed?.Invoke();
            return SendOutcome.Queued;
        }

        /// Called on each Editor update: sends the oldest queued message once Unity is not
        /// compiling and the client is connected, and nothing is on its way.
        public void Pump()
        {
            if (inFlight != null || entries.Count == 0 || compile.IsCompiling || !channel.Connected) return;
            var head = entries[0];
            head.Sending = true;
            // In the file before the request goes: a reload from here on gives it back.
            Save();
            inFlight = head;
            channel.Send(Params(head), () => Settle(head, null), error => Settle(head, error));
        }

        void Settle(Entry entry, RpcException error)
        {
            if (inFlight != entry) return;
            inFlight = null;
            entries.Remove(entry);
            Save();
            if (error != null) GiveBack(entry, error);
            else Changed?.Invoke();
        }

        void GiveBack(Entry entry, RpcException error)
        {
            returned.Add(new ReturnedSend
            {
                SessionId = entry.SessionId,
                Text = entry.Text,
                Images = entry.Images?.Count ?? 0,
                // Lost with the connection: it may have been read.
                Uncertain = error == null || error.ConnectionLost,
                Reason = error?.Message ?? "",
            });
            Changed?.Invoke();
        }

        static SendParams Params(Entry entry) => new SendParams { SessionId = entry.SessionId, Text = entry.Text, Images = entry.Images };

        void Save()
        {
            var items = new List<object>();
            foreach (var entry in entries)
            {
                var item = new Dictionary<string, object>
                {
                    { "id", entry.Id },
                    { "session_id", entry.SessionId },
                    { "text", entry.Text },
                    { "sending", entry.Sending },
                };
                if (entry.Images != null) item["images"] = Wire.ToJson(entry.Images);
                items.Add(item);
            }
            AtomicFile.Write(file, JsonText.Write(new Dictionary<string, object> { { "version", 1L }, { "messages", items } }));
        }

        void Load()
        {
            string text;
            try { text = AtomicFile.Read(file); }
            catch (Exception e) { Problem = "could not read " + file + ": " + e.Message; return; }
            if (text == null) return;
            var loaded = new List<Entry>();
            try
            {
                var root = JsonText.Parse(text);
                if (JsonRead.Long(root, "version") != 1) throw new FormatException("not version 1");
                foreach (var item in JsonRead.Arr(root, "messages") ?? throw new FormatException("no messages"))
                {
                    var session = JsonRead.Str(item, "session_id");
                    var body = JsonRead.Str(item, "text");
                    if (session == null || body == null) throw new FormatException("a message without its session or text");
                    var images = JsonRead.Get(item, "images");
                    loaded.Add(new Entry
                    {
                        Id = JsonRead.Str(item, "id") ?? Guid.NewGuid().ToString("N"),
                        SessionId = session,
                        Text = body,
                        Images = images == null ? null : Wire.FromJson<List<ImageInput>>(images),
                        Sending = JsonRead.Get(item, "sending") is bool sending && sending,
                    });
                }
            }
            catch (Exception e) when (e is JsonException || e is FormatException || e is InvalidCastException || e is ArgumentException)
            {
                Problem = file + " could not be read (" + e.Message + "); it was set aside";
                AtomicFile.SetAside(file);
                return;
            }
            foreach (var entry in loaded)
            {
                if (entry.Sending) GiveBack(entry, null);
                else entries.Add(entry);
            }
            Save();
        }
    }

    /// The queue's channel over the panel's client: `session/send` when connected.
    public sealed class ClientSendChannel : ISendChannel
    {
        readonly Func<CodivaClient> client;

        /// `client`: the client now (the Editor's is made again after a domain reload).
        public ClientSendChannel(Func<CodivaClient> client) { this.client = client; }

        public bool Connected => client()?.State == ConnectionState.Connected;

        public void Send(SendParams message, Action answered, Action<RpcException> failed)
        {
            var now = client();
            if (now == null) { failed(new RpcException(0, "not connected to codiva", null)); return; }
            now.Request(Methods.SessionSend, message, _ => answered(), failed);
        }
    }
}
