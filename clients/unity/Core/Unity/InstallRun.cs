// A one-click install's run, for the Unity plugin's (PluginInstall) and uLoop's (UloopInstall):
// the state the settings show, what each step did (`$ <command>`, what it printed, and how it
// ended when it did not succeed, in the panel's words), and argument vectors run one after the
// other through ICommandRunner, each only after the one before succeeded — the first that does
// not ends the run as failed. A click while a run is under way does nothing.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Panel;

namespace Codiva.Unity
{
    public enum InstallState { Idle, Running, Done, Failed }

    public sealed class InstallRun
    {
        readonly ICommandRunner runner;
        readonly object gate = new object();
        readonly List<Func<Language, string>> lines = new List<Func<Language, string>>();

        public InstallRun(ICommandRunner runner) { this.runner = runner; }

        public InstallState State { get; private set; } = InstallState.Idle;

        /// Called (from the runner's thread) when the state or the output changes.
        public event Action Changed;

        /// What each step did, one line (or more) each.
        public string Output(Language language)
        {
            lock (gate) return string.Join("\n", lines.Select(line => line(language)));
        }

        /// Starts a run: Running with no output yet; false (and nothing changes) while one is
        /// under way.
        public bool Begin()
        {
            lock (gate)
            {
                if (State == InstallState.Running) return false;
                State = InstallState.Running;
                lines.Clear();
            }
            return true;
        }

        /// A line of what a step did (the same in every language).
        public void Note(string line)
        {
            lock (gate) lines.Add(_ => line);
        }

        /// Runs `commands` from `index` one after the other (see the file's head), then ends the
        /// run: Done when every one succeeded, Failed at the first that did not.
        public void Run(IReadOnlyList<IReadOnlyList<string>> commands, int index = 0)
        {
            if (index >= commands.Count) { Finish(InstallState.Done); return; }
            var argv = commands[index];
            Note("$ " + string.Join(" ", argv));
            Changed?.Invoke();
            runner.Run(argv, outcome =>
            {
                outcome = outcome ?? new CommandOutcome { ExitCode = -1 };
                var text = (outcome.Output ?? "").TrimEnd();
                lock (gate)
                {
                    if (text.Length > 0) lines.Add(_ => text);
                    if (!outcome.Succeeded) lines.Add(outcome.Ending);
                }
                if (outcome.Succeeded) Run(commands, index + 1);
                else Finish(InstallState.Failed);
            });
        }

        /// Ends the run as `state`.
        public void Finish(InstallState state)
        {
            lock (gate) State = state;
            Changed?.Invoke();
        }
    }
}
