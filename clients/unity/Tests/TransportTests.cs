// The transports and the reconnect delays, without a server of codiva's: the Unix socket
// transport carries lines both ways (the daemon's transport; its end-to-end test waits for the
// daemon), and the back-off doubles up to its cap.
using System;
using System.IO;
using System.Linq;
using System.Net.Sockets;
using System.Text;
using System.Threading;
using Codiva.Client;
using Codiva.Json;
using Codiva.Protocol;
using Codiva.Rpc;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class TransportTests
    {
        /// An answer read with `CallInOrder` is handed over before the notification on the next
        /// line (the client posts a session's snapshot before the events after it).
        [Test]
        public void An_in_order_answer_is_handled_before_the_next_line()
        {
            using (var dir = new TempDir("codiva-sock-"))
            {
                var path = Path.Combine(dir.Path, "o.sock");
                var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                listener.Bind(new UnixEndPoint(path));
                listener.Listen(1);
                var peer = new Thread(() =>
                {
                    using (var socket = listener.Accept())
                    using (var stream = new NetworkStream(socket))
                    {
                        var reader = new StreamReader(stream, new UTF8Encoding(false));
                        var id = JsonRead.Long(JsonText.Parse(reader.ReadLine()), "id");
                        var lines = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"log\":[],\"prompts\":[],\"status\":\"running\"}}\n" +
                                    "{\"jsonrpc\":\"2.0\",\"method\":\"warning\",\"params\":{\"message\":\"after\"}}\n";
                        var bytes = Encoding.UTF8.GetBytes(lines);
                        stream.Write(bytes, 0, bytes.Length);
                        stream.Flush();
                        reader.ReadLine();
                    }
                });
                peer.Start();
                var order = new System.Collections.Generic.List<string>();
                var done = new ManualResetEventSlim();
                using (var connection = new RpcConnection(UnixSocketTransport.Connect(path)))
                {
                    connection.Notification += (method, parameters) => { lock (order) order.Add(JsonRead.Str(parameters, "message")); done.Set(); };
                    connection.Start();
                    connection.CallInOrder(Methods.SessionSnapshot, new SessionParams { SessionId = "s" }, snapshot => { lock (order) order.Add("snapshot " + snapshot.Status); });
                    Assert.IsTrue(done.Wait(TimeSpan.FromSeconds(30)), "the notification never came");
                    lock (order) CollectionAssert.AreEqual(new[] { "snapshot running", "after" }, order);
                }
                peer.Join();
                listener.Dispose();
            }
        }

        [Test]
        public void The_unix_socket_transport_carries_requests_answers_and_notifications()
        {
            using (var dir = new TempDir("codiva-sock-"))
            {
                var path = Path.Combine(dir.Path, "d.sock");
                var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                listener.Bind(new UnixEndPoint(path));
                listener.Listen(1);
                string received = null;
                var peer = new Thread(() =>
                {
                    using (var socket = listener.Accept())
                    using (var stream = new NetworkStream(socket))
                    {
                        var reader = new StreamReader(stream, new UTF8Encoding(false));
                        received = reader.ReadLine();
                        var id = JsonRead.Long(JsonText.Parse(received), "id");
                        var lines = "not json\n{\"jsonrpc\":\"2.0\",\"method\":\"warning\",\"params\":{\"message\":\"héllo 世界\"}}\n" +
                                    "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"seq\":7,\"sessions\":[]}}\n";
                        var bytes = Encoding.UTF8.GetBytes(lines);
                        // Split inside 世 (E4 B8 96): the reader joins the bytes before decoding a line.
                        var cut = Array.IndexOf(bytes, (byte)0xE4) + 1;
                        stream.Write(bytes, 0, cut);
                        stream.Flush();
                        Thread.Sleep(50);
                        stream.Write(bytes, cut, bytes.Length - cut);
                        stream.Flush();
                        reader.ReadLine();
                    }
                });
                peer.Start();
                string warning = null, unreadable = null;
                using (var connection = new RpcConnection(UnixSocketTransport.Connect(path)))
                {
                    connection.Notification += (method, parameters) => warning = JsonRead.Str(parameters, "message");
                    connection.Unreadable += message => unreadable = message;
                    connection.Start();
                    var snapshot = connection.Call(Methods.ManagerSnapshot, new NoParams()).Result;
                    Assert.AreEqual(7, snapshot.Seq);
                    Assert.AreEqual("héllo 世界", warning);
                    StringAssert.StartsWith("JSON: expected null at offset 0", unreadable, "a line that is not JSON is skipped, the connection reads on");
                }
                peer.Join();
                listener.Dispose();
                Assert.AreEqual("manager/snapshot", JsonRead.Str(JsonText.Parse(received), "method"));
            }
        }

        [Test]
        public void A_dropped_connection_fails_what_is_pending()
        {
            using (var dir = new TempDir("codiva-sock-"))
            {
                var path = Path.Combine(dir.Path, "d.sock");
                var listener = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                listener.Bind(new UnixEndPoint(path));
                listener.Listen(1);
                var peer = new Thread(() =>
                {
                    using (var socket = listener.Accept())
                    using (var reader = new StreamReader(new NetworkStream(socket)))
                        reader.ReadLine();
                });
                peer.Start();
                using (var connection = new RpcConnection(UnixSocketTransport.Connect(path)))
                {
                    var closed = new ManualResetEventSlim();
                    connection.Closed += _ => closed.Set();
                    connection.Start();
                    var call = connection.Call(Methods.ManagerSnapshot, new NoParams());
                    var error = Assert.Throws<AggregateException>(() => call.Wait()).InnerException as RpcException;
                    Assert.IsNotNull(error);
                    Assert.IsTrue(error.ConnectionLost);
                    Assert.IsTrue(closed.Wait(TimeSpan.FromSeconds(30)));
                }
                peer.Join();
                listener.Dispose();
            }
        }

        [Test]
        public void Reconnect_delays_double_up_to_the_cap_and_restart_after_a_good_connection()
        {
            var backoff = new Backoff { Initial = TimeSpan.FromMilliseconds(250), Max = TimeSpan.FromSeconds(2) };
            var delays = new double[6];
            for (var i = 0; i < delays.Length; i++) delays[i] = backoff.Next().TotalMilliseconds;
            Assert.AreEqual(new double[] { 250, 500, 1000, 2000, 2000, 2000 }, delays);
            backoff.Reset();
            Assert.AreEqual(250, backoff.Next().TotalMilliseconds);
        }

        [Test]
        public void The_arguments_of_codivas_command_lines_reach_it_as_they_were()
        {
            // A project folder may hold an apostrophe, quotes, a `$`; Mono on Linux and macOS
            // splits ProcessStartInfo's argument string as a shell's double quotes do.
            var args = new[] { "Bob'sGame", "/p/Bob's Game", "say \"hi\"", "$HOME", "C:\\dir\\", "a\\\\b", "" };
            var run = ChildProcess.Run(new CodivaProgram { Path = "/usr/bin/printf" }.Command(new[] { "[%s]\\n" }.Concat(args).ToArray()));
            Assert.AreEqual(ChildEnd.Exited, run.End);
            Assert.AreEqual(string.Concat(args.Select(a => "[" + a + "]\n")), Encoding.UTF8.GetString(run.Output));
        }

        [Test]
        public void An_attach_that_hangs_is_stopped_with_its_group_and_one_that_fails_says_why()
        {
            using (var dir = new TempDir("codiva-attach-"))
            {
                var fake = Path.Combine(dir.Path, "codiva");
                var pid = Path.Combine(dir.Path, "child.pid");
                File.WriteAllText(fake, "#!/bin/sh\nsleep 60 & echo $! > " + pid + "\nwait\n");
                Run.Program("chmod", "+x " + fake, dir.Path);
                var program = new CodivaProgram { Path = fake, Repo = dir.Path };
                var hung = Assert.Throws<IOException>(() => new DaemonSocketTransportFactory(program, attachTimeoutMs: 2000).Open());
                StringAssert.StartsWith("codiva attach failed (TimedOut)", hung.Message);
                Assert.IsTrue(ChildProcessTests.Gone(pid), "attach's own child was killed with it");

                File.WriteAllText(fake, "#!/bin/sh\necho 'no git repository here' >&2\nexit 3\n");
                var failed = Assert.Throws<IOException>(() => new DaemonSocketTransportFactory(program).Open());
                Assert.AreEqual("codiva attach failed (status 3): no git repository here", failed.Message);
            }
        }

        [Test]
        public void A_stdio_server_that_does_not_end_is_killed_with_its_group()
        {
            using (var dir = new TempDir("codiva-serve-"))
            {
                var fake = Path.Combine(dir.Path, "codiva");
                var pid = Path.Combine(dir.Path, "child.pid");
                var self = Path.Combine(dir.Path, "self.pid");
                // It reads its stdin to the end, then stays (its child too).
                File.WriteAllText(fake, "#!/bin/sh\necho $$ > " + self + "\nsleep 60 & echo $! > " + pid + "\ncat > /dev/null\nwait\n");
                Run.Program("chmod", "+x " + fake, dir.Path);
                var transport = new StdioTransport(new CodivaProgram { Path = fake, Repo = dir.Path }, stopMs: 300);
                for (var i = 0; i < 100 && !(File.Exists(pid) && File.ReadAllText(pid).Trim().Length > 0); i++) Thread.Sleep(100);
                StringAssert.StartsWith("codiva serve --stdio (pid ", transport.Describe);
                transport.Dispose();
                Assert.IsTrue(ChildProcessTests.Gone(self), "the server was killed");
                Assert.IsTrue(ChildProcessTests.Gone(pid), "and what it started, with its group");
            }
        }
    }
}
