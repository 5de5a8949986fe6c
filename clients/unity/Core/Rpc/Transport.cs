// Transports: a duplex byte stream carrying one JSON-RPC message per line.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Net;
using System.Net.Sockets;
using System.Text;
using Codiva.Unity;

namespace Codiva.Rpc
{
    /// An open duplex stream to a codiva server. Dispose closes it (for a child process: its
    /// stdin, which ends `codiva serve`; the server stops and reaps every agent it ran).
    public interface ITransport : IDisposable
    {
        Stream Input { get; }
        Stream Output { get; }
        string Describe { get; }
    }

    /// Opens a fresh transport (for the first connection and for every reconnect).
    public interface ITransportFactory
    {
        ITransport Open();
    }

    /// How to run the `codiva` program: its path, the repository, the environment.
    public sealed class CodivaProgram
    {
        public string Path = "codiva";
        public string Repo;
        /// When set, the child's environment is exactly this (tests pass an allowlist);
        /// otherwise the parent's environment is inherited.
        public Dictionary<string, string> Environment;
        /// The system, for how a command of it gets its process group (Codiva.Unity.ChildProcess).
        public ChildOs Os = ChildOs.Linux;

        /// `codiva <args>` in the repository, with this environment, in a process group of its
        /// own (Codiva.Unity.ChildProcess: Run to its end, or Start for a connection).
        public ChildCommand Command(params string[] args)
        {
            var argv = new List<string> { Path };
            argv.AddRange(args);
            return new ChildCommand
            {
                Argv = argv,
                MaxOutputBytes = 64 * 1024,
                Environment = Environment,
                WorkingDirectory = Repo ?? Directory.GetCurrentDirectory(),
                Os = Os,
            };
        }
    }

    /// `codiva serve --stdio --repo <dir>` as a child process (in a process group of its own):
    /// one connection = one server.
    public sealed class StdioTransportFactory : ITransportFactory
    {
        readonly CodivaProgram program;
        public StdioTransportFactory(CodivaProgram program) { this.program = program; }

        public ITransport Open() => new StdioTransport(program);
    }

    public sealed class StdioTransport : ITransport
    {
        readonly Process process;
        /// The server's stderr (diagnostics), kept for error reports.
        public readonly StringBuilder Stderr = new StringBuilder();

        /// How long Dispose waits for serve to end on its own.
        public const int StopMs = 35000;
        readonly int stopMs;

        public StdioTransport(CodivaProgram program, int stopMs = StopMs)
        {
            this.stopMs = stopMs;
            // In a process group of its own, ended with all it started (ChildProcess).
            process = ChildProcess.Start(program.Command("serve", "--stdio", "--repo", program.Repo));
            process.ErrorDataReceived += (_, e) => { if (e.Data != null) lock (Stderr) Stderr.AppendLine(e.Data); };
            process.BeginErrorReadLine();
        }

        public Stream Input => process.StandardOutput.BaseStream;
        public Stream Output => process.StandardInput.BaseStream;
        public string Describe => "codiva serve --stdio (pid " + process.Id + ")";
        public Process Process => process;
        int disposed;

        public void Dispose()
        {
            if (System.Threading.Interlocked.Exchange(ref disposed, 1) == 1) return;
            try { process.StandardInput.Close(); } catch (Exception) { }
            // serve answers what it read, stops its agents and exits on EOF (docs/serve-api.md);
            // past StopMs it is killed. Its group goes either way, and it is reaped.
            var exited = process.WaitForExit(stopMs);
            ChildProcess.KillGroup(process.Id);
            if (!exited) process.WaitForExit(5000);
            process.Dispose();
        }
    }

    /// The repository's daemon: `codiva attach --print-socket --repo <dir>` makes sure it runs and
    /// prints its Unix socket; each Open connects there. The daemon, not this client, owns the
    /// agents, so a dropped connection (a domain reload) leaves them running.
    /// `codiva attach` runs in a process group of its own (ChildProcess), killed whole past its
    /// deadline: an attach that hangs is an error, never a wait without end.
    /// Windows: the daemon would offer a named pipe; not built (see README).
    public sealed class DaemonSocketTransportFactory : ITransportFactory
    {
        readonly CodivaProgram program;
        readonly int attachTimeoutMs;

        public DaemonSocketTransportFactory(CodivaProgram program, int attachTimeoutMs = AttachTimeoutMs)
        {
            this.program = program;
            this.attachTimeoutMs = attachTimeoutMs;
        }

        public string Socket { get; private set; }

        public ITransport Open()
        {
            if (Socket == null || !File.Exists(Socket)) Socket = Attach();
            try { return UnixSocketTransport.Connect(Socket); }
            catch (SocketException)
            {
                // The daemon went away since: ask again (attach starts a new one).
                Socket = Attach();
                return UnixSocketTransport.Connect(Socket);
            }
        }

        /// How long `codiva attach` may take: it waits up to 30 s for a daemon it starts.
        public const int AttachTimeoutMs = 120 * 1000;

        string Attach()
        {
            var attach = program.Command("attach", "--print-socket", "--repo", program.Repo);
            attach.TimeoutMs = attachTimeoutMs;
            var run = ChildProcess.Run(attach);
            var utf8 = new UTF8Encoding(false);
            if (run.End != ChildEnd.Exited || run.ExitCode != 0)
                throw new IOException("codiva attach failed (" + (run.End == ChildEnd.Exited ? "status " + run.ExitCode : run.End + " " + run.Problem).Trim() + "): "
                    + utf8.GetString(run.Errors).Trim());
            return utf8.GetString(run.Output).Trim();
        }
    }

    public sealed class UnixSocketTransport : ITransport
    {
        readonly Socket socket;
        readonly NetworkStream stream;
        readonly string path;

        UnixSocketTransport(Socket socket, string path)
        {
            this.socket = socket;
            this.path = path;
            stream = new NetworkStream(socket, true);
        }

        public static UnixSocketTransport Connect(string path)
        {
            var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
            try { socket.Connect(new UnixEndPoint(path)); }
            catch { socket.Dispose(); throw; }
            return new UnixSocketTransport(socket, path);
        }

        public Stream Input => stream;
        public Stream Output => stream;
        public string Describe => "unix socket " + path;

        int disposed;

        public void Dispose()
        {
            if (System.Threading.Interlocked.Exchange(ref disposed, 1) == 1) return;
            try { socket.Shutdown(SocketShutdown.Both); } catch (Exception) { }
            stream.Dispose();
        }
    }

    /// An AF_UNIX address (sockaddr_un: family, then the path, NUL-terminated). Written here
    /// because Mono.Posix is not in every Unity, and UnixDomainSocketEndPoint not in its Mono.
    public sealed class UnixEndPoint : EndPoint
    {
        public readonly string Path;
        public UnixEndPoint(string path) { Path = path; }

        public override AddressFamily AddressFamily => AddressFamily.Unix;

        public override SocketAddress Serialize()
        {
            var bytes = Encoding.UTF8.GetBytes(Path);
            if (bytes.Length > 107) throw new ArgumentException("socket path too long: " + Path);
            var address = new SocketAddress(AddressFamily.Unix, 2 + bytes.Length + 1);
            for (var i = 0; i < bytes.Length; i++) address[2 + i] = bytes[i];
            address[2 + bytes.Length] = 0;
            return address;
        }

        public override EndPoint Create(SocketAddress address)
        {
            var length = address.Size - 2;
            var bytes = new byte[length];
            for (var i = 0; i < length; i++) bytes[i] = address[2 + i];
            var end = Array.IndexOf(bytes, (byte)0);
            return new UnixEndPoint(Encoding.UTF8.GetString(bytes, 0, end < 0 ? length : end));
        }

        public override string ToString() => Path;
    }
}
