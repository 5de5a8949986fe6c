// The Unity official Claude Code plugin (Codiva.Unity.UnityPlugin, PluginInstall): detection
// from Claude Code's static files under ~/.claude, the install as exactly the reference's two
// argument vectors, run only on a click and in order, and the steering lines of a new session.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class UnityPluginTests
    {
        sealed class Files : IFileReader
        {
            public readonly Dictionary<string, string> Text = new Dictionary<string, string>();
            public string ReadText(string path) => Text.TryGetValue(path, out var t) ? t : null;
        }

        sealed class Runner : ICommandRunner
        {
            public readonly List<List<string>> Runs = new List<List<string>>();
            public readonly Queue<CommandOutcome> Outcomes = new Queue<CommandOutcome>();
            public Action<CommandOutcome> Pending;
            public bool Hold;
            public void Run(IReadOnlyList<string> argv, Action<CommandOutcome> done)
            {
                Runs.Add(argv.ToList());
                if (Hold) { Pending = done; return; }
                done(Outcomes.Count > 0 ? Outcomes.Dequeue() : new CommandOutcome { ExitCode = 0, Output = "ok" });
            }
        }

        const string Dir = "/home/u/.claude";
        static string InstalledFile => Path.Combine(Dir, "plugins", "installed_plugins.json");
        static string SettingsFile => Path.Combine(Dir, "settings.json");
        const string Installs = "{\"version\":2,\"plugins\":{\"unity@unity-agent-plugin\":[{\"scope\":\"user\",\"installPath\":\"/home/u/.claude/plugins/cache/unity\",\"version\":\"1.0.0\"}]}}";

        static Files With(string installed, string settings)
        {
            var files = new Files();
            if (installed != null) files.Text[InstalledFile] = installed;
            if (settings != null) files.Text[SettingsFile] = settings;
            return files;
        }

        [Test]
        public void Installed_when_listed_with_an_install_and_enabled()
        {
            Assert.AreEqual(Path.Combine("/home/u", ".claude"), UnityPlugin.ClaudeDir("/home/u"));
            Assert.IsTrue(UnityPlugin.Installed(With(Installs, "{\"enabledPlugins\":{\"unity@unity-agent-plugin\":true}}"), Dir));
        }

        [Test]
        public void Not_installed_when_a_file_or_an_entry_says_otherwise()
        {
            var enabled = "{\"enabledPlugins\":{\"unity@unity-agent-plugin\":true}}";
            Assert.IsFalse(UnityPlugin.Installed(With(null, enabled), Dir), "no installed_plugins.json");
            Assert.IsFalse(UnityPlugin.Installed(With(Installs, null), Dir), "no settings.json");
            Assert.IsFalse(UnityPlugin.Installed(With(Installs, "{\"enabledPlugins\":{\"unity@unity-agent-plugin\":false}}"), Dir), "disabled");
            Assert.IsFalse(UnityPlugin.Installed(With(Installs, "{\"enabledPlugins\":{\"other@somewhere\":true}}"), Dir), "another plugin enabled");
            Assert.IsFalse(UnityPlugin.Installed(With("{\"version\":2,\"plugins\":{\"unity@unity-agent-plugin\":[]}}", enabled), Dir), "no install");
            Assert.IsFalse(UnityPlugin.Installed(With("{\"version\":2,\"plugins\":{\"unity@elsewhere\":[{}]}}", enabled), Dir), "same name, other marketplace");
            Assert.IsFalse(UnityPlugin.Installed(With("{not json", enabled), Dir), "broken file");
            Assert.IsFalse(UnityPlugin.Installed(With(Installs, enabled), "/home/other/.claude"), "another user's folder");
        }

        [Test]
        public void The_install_is_exactly_the_two_commands_as_argument_vectors()
        {
            var commands = UnityPlugin.InstallCommands();
            Assert.AreEqual(2, commands.Count);
            CollectionAssert.AreEqual(new[] { "claude", "plugin", "marketplace", "add", "Unity-Technologies/unity-agent-plugin" }, commands[0]);
            CollectionAssert.AreEqual(new[] { "claude", "plugin", "install", "unity@unity-agent-plugin", "--scope", "user", "--yes" }, commands[1]);
            CollectionAssert.AreEqual(new[] { "/opt/claude", "plugin", "marketplace", "add", "Unity-Technologies/unity-agent-plugin" }, UnityPlugin.InstallCommands("/opt/claude")[0]);
        }

        [Test]
        public void Nothing_runs_before_a_click_and_a_click_runs_both_in_order()
        {
            var runner = new Runner();
            var install = new PluginInstall(runner);
            Assert.AreEqual(0, runner.Runs.Count, "constructing runs nothing");
            Assert.AreEqual(InstallState.Idle, install.State);
            UnityPlugin.Installed(With(null, null), Dir);
            Assert.AreEqual(0, runner.Runs.Count, "detecting runs nothing");

            install.Click();
            Assert.AreEqual(2, runner.Runs.Count);
            CollectionAssert.AreEqual(UnityPlugin.InstallCommands()[0], runner.Runs[0]);
            CollectionAssert.AreEqual(UnityPlugin.InstallCommands()[1], runner.Runs[1]);
            Assert.AreEqual(InstallState.Done, install.State);
            StringAssert.Contains("$ claude plugin marketplace add Unity-Technologies/unity-agent-plugin\nok", install.Output(Language.En));
            StringAssert.Contains("$ claude plugin install unity@unity-agent-plugin --scope user --yes\nok", install.Output(Language.En));
        }

        [Test]
        public void A_failed_first_command_stops_the_install_and_its_output_is_kept()
        {
            var runner = new Runner();
            runner.Outcomes.Enqueue(new CommandOutcome { ExitCode = 1, Output = "marketplace unreachable\n" });
            var install = new PluginInstall(runner);
            install.Click();
            Assert.AreEqual(1, runner.Runs.Count, "the install is not run after a failed marketplace add");
            Assert.AreEqual(InstallState.Failed, install.State);
            StringAssert.Contains("marketplace unreachable\nexit 1", install.Output(Language.En));
        }

        [Test]
        public void A_click_while_running_runs_nothing_more()
        {
            var runner = new Runner { Hold = true };
            var install = new PluginInstall(runner);
            var changes = 0;
            install.Changed += () => changes++;
            install.Click();
            install.Click();
            Assert.AreEqual(1, runner.Runs.Count);
            Assert.AreEqual(InstallState.Running, install.State);
            runner.Hold = false;
            runner.Pending(new CommandOutcome { ExitCode = 0, Output = "added" });
            Assert.AreEqual(2, runner.Runs.Count);
            Assert.AreEqual(InstallState.Done, install.State);
            Assert.Greater(changes, 0);
        }

        [Test]
        public void A_new_session_gets_the_steering_lines_only_when_installed()
        {
            var create = new CreateParams { AppendSystemPrompt = "gate" };
            Assert.AreEqual("gate", UnityPlugin.Apply(create, false).AppendSystemPrompt);
            Assert.AreEqual("gate\n\n" + UnityPlugin.Steering, UnityPlugin.Apply(create, true).AppendSystemPrompt);
            Assert.AreEqual(UnityPlugin.Steering, UnityPlugin.Apply(new CreateParams(), true).AppendSystemPrompt);
            StringAssert.Contains("unity@unity-agent-plugin", UnityPlugin.Steering);
        }

        [Test]
        public void A_command_stopped_or_never_started_is_said_in_the_panels_words()
        {
            var runner = new Runner();
            runner.Outcomes.Enqueue(new CommandOutcome { End = ChildEnd.TimedOut, ExitCode = -1, Output = "Cloning…", Program = "claude", TimeoutMs = ChildProcess.CommandTimeoutMs });
            var install = new PluginInstall(runner);
            install.Click();
            Assert.AreEqual(1, runner.Runs.Count);
            Assert.AreEqual(InstallState.Failed, install.State);
            StringAssert.EndsWith("Cloning…\nclaude did not finish within 10m 00s: it was stopped, with every process it started", install.Output(Language.En));
            StringAssert.EndsWith("Cloning…\nclaude が10分00秒以内に終わらなかったため、それが起動したプロセスごと停止しました", install.Output(Language.Ja));
            runner.Outcomes.Enqueue(new CommandOutcome { End = ChildEnd.NotFound, ExitCode = -1, Program = "claude" });
            install.Click();
            Assert.AreEqual("$ claude plugin marketplace add Unity-Technologies/unity-agent-plugin\nclaude was not found on the Editor's PATH: nothing was run", install.Output(Language.En));
        }

        [Test]
        public void The_settings_line_follows_the_install_and_the_files()
        {
            foreach (var lang in new[] { Language.En, Language.Ja })
            {
                Assert.AreEqual(Strings.Get(Str.PluginInstalling, lang), UnityPlugin.StatusWords(true, InstallState.Running, lang));
                Assert.AreEqual(Strings.Get(Str.PluginInstallFailed, lang), UnityPlugin.StatusWords(true, InstallState.Failed, lang));
                Assert.AreEqual(Strings.Get(Str.PluginInstalled, lang), UnityPlugin.StatusWords(true, InstallState.Done, lang));
                Assert.AreEqual(Strings.Get(Str.PluginNotInstalled, lang), UnityPlugin.StatusWords(false, InstallState.Idle, lang));
                Assert.AreEqual(Strings.Get(Str.PluginNotInstalled, lang), UnityPlugin.StatusWords(false, InstallState.Done, lang), "done, but the files do not say installed");
            }
        }
    }
}
