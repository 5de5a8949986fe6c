// Sends held while Unity compiles (Codiva.Unity.SendQueue) over a fake channel and compile state:
// queued in order and in a file, drained one at a time after the compile, kept across a domain
// reload (a new queue over the same file), the message on its way at a reload given back instead
// of sent twice, refusals given back with their reason, the file written whole.
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Rpc;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class SendQueueTests
    {
        sealed class Compile : ICompileState { public bool IsCompiling { get; set; } }

        sealed class Channel : ISendChannel
        {
            public bool Connected { get; set; } = true;
            public readonly List<SendParams> Sent = new List<SendParams>();
            public readonly List<System.Action> Answers = new List<System.Action>();
            public readonly List<System.Action<RpcException>> Failures = new List<System.Action<RpcException>>();

            public void Send(SendParams message, System.Action answered, System.Action<RpcException> failed)
            {
                Sent.Add(message);
                Answers.Add(answered);
                Failures.Add(failed);
            }

            public string[] Texts => Sent.Select(s => s.Text).ToArray();
        }

        TempDir dir;
        string file;
        Compile compile;
        Channel channel;

        [SetUp]
        public void Start()
        {
            dir = new TempDir("codiva-sends-");
            file = Path.Combine(dir.Path, "Temp", "Codiva", "queued-sends.json");
            compile = new Compile();
            channel = new Channel();
        }

        [TearDown]
        public void End() => dir.Dispose();

        string[] InFile() =>
            (JsonRead.Arr(JsonText.Parse(File.ReadAllText(file)), "messages") ?? new List<object>()).Select(m => JsonRead.Str(m, "text")).ToArray();

        static List<ImageInput> Png() => new List<ImageInput> { new ImageInput { MediaType = "image/png", Data = "iVBORw0KGgo=" } };

        [Test]
        public void Sends_while_compiling_wait_in_order_and_go_one_at_a_time_after_it()
        {
            var queue = new SendQueue(file, channel, compile);
            Assert.AreEqual(SendOutcome.Sent, queue.Send("s1", "before"));
            compile.IsCompiling = true;
            Assert.AreEqual(SendOutcome.Queued, queue.Send("s1", "one"));
            Assert.AreEqual(SendOutcome.Queued, queue.Send("s2", "two", Png()));
            queue.Pump();
            Assert.AreEqual(new[] { "before" }, channel.Texts, "nothing goes while Unity compiles");
            Assert.AreEqual(new[] { "one", "two" }, InFile());
            Assert.AreEqual("2 waiting until Unity finishes compiling", PanelRich.Shown(queue.WaitingRich(Language.En)));
            Assert.AreEqual("コンパイルの終了まで 2 件を保留中", PanelRich.Shown(queue.WaitingRich(Language.Ja)));

            compile.IsCompiling = false;
            // A message typed now waits behind them: the order is the user's.
            Assert.AreEqual(SendOutcome.Queued, queue.Send("s1", "three"));
            queue.Pump();
            queue.Pump();
            Assert.AreEqual(new[] { "before", "one" }, channel.Texts, "one at a time");
            channel.Answers[1]();
            Assert.AreEqual(new[] { "two", "three" }, InFile());
            queue.Pump();
            Assert.AreEqual("s2", channel.Sent[2].SessionId);
            Assert.AreEqual("image/png", channel.Sent[2].Images.Single().MediaType);
            channel.Answers[2]();
            queue.Pump();
            channel.Answers[3]();
            Assert.AreEqual(new[] { "before", "one", "two", "three" }, channel.Texts);
            Assert.AreEqual(0, queue.Waiting);
            Assert.AreEqual(new string[0], InFile());
            Assert.AreEqual("", queue.WaitingRich(Language.En));
            Assert.AreEqual(0, queue.Returned.Count);
        }

        [Test]
        public void Disconnected_sends_wait_for_the_connection()
        {
            var queue = new SendQueue(file, channel, compile);
            channel.Connected = false;
            Assert.AreEqual(SendOutcome.Queued, queue.Send("s1", "hello"));
            queue.Pump();
            Assert.AreEqual(0, channel.Sent.Count);
            channel.Connected = true;
            queue.Pump();
            Assert.AreEqual(new[] { "hello" }, channel.Texts);
        }

        [Test]
        public void The_queue_outlives_a_domain_reload_and_the_message_on_its_way_is_given_back_not_sent_twice()
        {
            compile.IsCompiling = true;
            var before = new SendQueue(file, channel, compile);
            before.Send("s1", "first");
            before.Send("s1", "second", Png());
            before.Send("s1", "third");
            compile.IsCompiling = false;
            before.Pump();
            Assert.AreEqual(new[] { "first" }, channel.Texts);
            // The domain goes (no answer comes to this queue); the next one reads the file.
            var after = new SendQueue(file, channel, compile);
            Assert.IsNull(after.Problem);
            Assert.AreEqual(2, after.Waiting);
            var back = after.Returned.Single();
            Assert.IsTrue(back.Uncertain);
            Assert.AreEqual("first", back.Text);
            StringAssert.StartsWith("Perhaps not sent", PanelRich.Shown(back.Rich(Language.En)));
            StringAssert.EndsWith(": first", PanelRich.Shown(back.Rich(Language.En)));
            Assert.AreEqual(new[] { "second", "third" }, InFile());
            after.Pump();
            Assert.AreEqual(new[] { "first", "second" }, channel.Texts, "the first is not sent again");
            Assert.AreEqual("iVBORw0KGgo=", channel.Sent[1].Images.Single().Data);
            channel.Answers[1]();
            after.Pump();
            Assert.AreEqual(new[] { "first", "second", "third" }, channel.Texts);
            after.Dismiss();
            Assert.AreEqual(0, after.Returned.Count);
        }

        [Test]
        public void A_refused_or_lost_send_is_given_back_and_the_next_one_goes()
        {
            compile.IsCompiling = true;
            var queue = new SendQueue(file, channel, compile);
            queue.Send("gone", "to a removed session");
            queue.Send("s1", "lost <b>with</b> the connection");
            queue.Send("s1", "last");
            compile.IsCompiling = false;
            queue.Pump();
            channel.Failures[0](new RpcException(-32602, "no session gone", null));
            queue.Pump();
            channel.Failures[1](new RpcException(0, "the connection to codiva was lost", null));
            queue.Pump();
            Assert.AreEqual(new[] { "to a removed session", "lost <b>with</b> the connection", "last" }, channel.Texts);
            Assert.AreEqual(new[] { false, true }, queue.Returned.Select(r => r.Uncertain).ToArray());
            Assert.AreEqual("Not sent: to a removed session (no session gone)", PanelRich.Shown(queue.Returned[0].Rich(Language.En)));
            Assert.AreEqual("送信されませんでした: to a removed session(no session gone)", PanelRich.Shown(queue.Returned[0].Rich(Language.Ja)));
            StringAssert.EndsWith(": lost <b>with</b> the connection", PanelRich.Shown(queue.Returned[1].Rich(Language.En)));
            // A send that went at once and was refused is given back too.
            channel.Answers[2]();
            queue.Send("s1", "now");
            channel.Failures[3](new RpcException(-32000, "still starting", null));
            Assert.AreEqual("now", queue.Returned[2].Text);
        }

        [Test]
        public void The_file_is_written_whole_and_an_unreadable_one_is_set_aside()
        {
            compile.IsCompiling = true;
            var queue = new SendQueue(file, channel, compile);
            for (var i = 0; i < SendQueue.MaxQueued; i++) queue.Send("s1", "m" + i);
            // No temporary file is left next to it.
            Assert.AreEqual(new[] { "queued-sends.json" }, Directory.GetFiles(Path.GetDirectoryName(file)).Select(Path.GetFileName).ToArray());
            // One past the limit is given back, not queued.
            queue.Send("s1", "too many");
            Assert.AreEqual(SendQueue.MaxQueued, InFile().Length);
            Assert.AreEqual("too many", queue.Returned.Single().Text);

            // A crash mid-write leaves a temporary file: never read.
            File.WriteAllText(file + ".1234abcd.codiva~", "{\"version\":1,\"messa");
            Assert.AreEqual(SendQueue.MaxQueued, new SendQueue(file, channel, compile).Waiting);

            File.WriteAllText(file, "{\"version\":1,\"messages\":[{\"session_id\":\"s1\",\"te");
            var broken = new SendQueue(file, channel, compile);
            StringAssert.Contains("could not be read", broken.Problem);
            Assert.AreEqual(0, broken.Waiting);
            Assert.IsFalse(File.Exists(file));
            Assert.IsTrue(File.Exists(file + ".unreadable"));
            compile.IsCompiling = false;
            broken.Pump();
            Assert.AreEqual(0, channel.Sent.Count);
        }
    }
}
