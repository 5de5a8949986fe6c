// Calls that run on the main thread: each one is a job. A call waits for its job a while;
// one that outlives the wait answers with the job's id, and `job_status` gives its result.
using System;
using System.Collections.Generic;
using System.Threading;
using Codiva.Client;

namespace Codiva.Ops
{
    public sealed class Job
    {
        public readonly string Id;
        public readonly string Tool;
        readonly ManualResetEventSlim done = new ManualResetEventSlim();
        public ToolResult Result { get; private set; }
        /// `queued` (waiting for the main thread), `running`, `finished`.
        public string Status { get; private set; } = "queued";

        public Job(string id, string tool) { Id = id; Tool = tool; }

        internal void Started() { lock (this) Status = "running"; }

        internal void Finish(ToolResult result)
        {
            lock (this) { Result = result; Status = "finished"; }
            done.Set();
        }

        public bool Wait(TimeSpan limit) => done.Wait(limit);
        public bool IsFinished => done.IsSet;
    }

    /// The recent jobs (at most `Capacity`; the oldest finished ones are forgotten first).
    public sealed class JobLedger
    {
        public const int Capacity = 32;
        readonly List<Job> jobs = new List<Job>();
        long next;

        public Job Create(string tool)
        {
            lock (jobs)
            {
                var job = new Job((++next).ToString(), tool);
                jobs.Add(job);
                while (jobs.Count > Capacity)
                {
                    var old = jobs.FindIndex(j => j.IsFinished);
                    if (old < 0) break;
                    jobs.RemoveAt(old);
                }
                return job;
            }
        }

        public Job Find(string id)
        {
            lock (jobs) return jobs.Find(j => j.Id == id);
        }
    }

    /// Runs tools where they must run: main-thread tools are posted to the main thread and waited
    /// for up to `MainThreadWait`.
    public sealed class ToolRunner
    {
        readonly IDispatcher mainThread;
        public readonly JobLedger Jobs = new JobLedger();
        public TimeSpan MainThreadWait = TimeSpan.FromSeconds(15);
        /// A main-thread call outlived its wait and became a job (raised on the HTTP thread).
        public event Action<Job> BecameJob;

        public ToolRunner(IDispatcher mainThread) { this.mainThread = mainThread; }

        public ToolResult Run(ITool tool, Dictionary<string, object> arguments)
        {
            if (tool.Affinity == ThreadAffinity.Any) return Invoke(tool, arguments);
            var job = Jobs.Create(tool.Name);
            mainThread.Post(() =>
            {
                job.Started();
                job.Finish(Invoke(tool, arguments));
            });
            if (job.Wait(MainThreadWait)) return job.Result;
            BecameJob?.Invoke(job);
            var result = ToolResult.Text("`" + tool.Name + "` is still " + job.Status + " on the Unity main thread (waited " +
                (long)MainThreadWait.TotalSeconds + " s); it continues as job " + job.Id +
                ". Call job_status with {\"job_id\":\"" + job.Id + "\"} for its result.");
            return result;
        }

        static ToolResult Invoke(ITool tool, Dictionary<string, object> arguments)
        {
            try { return tool.Call(arguments); }
            catch (ToolError error) { return ToolResult.Text(error.Message, true); }
            catch (Exception error) { return ToolResult.Text(tool.Name + " failed: " + error.GetType().Name + ": " + error.Message, true); }
        }
    }

    public sealed class PingTool : ITool, IChangesNothing
    {
        public string Name => "ping";
        public string Module => "core";
        public string Description => "Checks that the Unity Editor's tool server answers (replies pong).";
        public Dictionary<string, object> InputSchema => Args.Schema();
        public ThreadAffinity Affinity => ThreadAffinity.MainThread;
        public bool Destructive => false;
        public ToolResult Call(Dictionary<string, object> arguments) => ToolResult.Text("pong");
    }

    /// Off the main thread: a busy main thread must not keep the agent from asking.
    public sealed class JobStatusTool : ITool, IChangesNothing
    {
        public const int MaxWaitMs = 10000;
        readonly JobLedger jobs;
        public JobStatusTool(JobLedger jobs) { this.jobs = jobs; }

        public string Name => "job_status";
        public string Module => "core";
        public string Description => "Gets the status and result of a job (a Unity call that outlived its wait); waits up to wait_ms (at most 10000) for it to finish.";
        public Dictionary<string, object> InputSchema => Args.Schema(
            "job_id", "string", "the job's id",
            "wait_ms", "integer", "how long to wait for it to finish (0 to 10000)").Require("job_id");
        public ThreadAffinity Affinity => ThreadAffinity.Any;
        public bool Destructive => false;

        public ToolResult Call(Dictionary<string, object> arguments)
        {
            var id = Args.RequireString(arguments, "job_id");
            var job = jobs.Find(id);
            if (job == null) throw new ToolError("no job " + id + " (the " + JobLedger.Capacity + " most recent are kept)");
            var wait = Codiva.Json.JsonRead.Long(arguments, "wait_ms") ?? 0;
            job.Wait(TimeSpan.FromMilliseconds(Math.Max(0, Math.Min(wait, MaxWaitMs))));
            if (!job.IsFinished)
            {
                var pending = ToolResult.Text("job " + id + " (" + job.Tool + ") is still " + job.Status + ".");
                return pending;
            }
            var result = new ToolResult { IsError = job.Result.IsError };
            result.AddText("job " + id + " (" + job.Tool + ") finished" + (job.Result.IsError ? " with an error" : "") + ":");
            result.Content.AddRange(job.Result.Content);
            return result;
        }
    }
}
