// uLoop (Codiva.Unity.Uloop, UloopManifest, UloopInstall): detection from the project's
// package files and PATH, the preset's exact rules and what a session is given, the manifest's
// edit, and the install run only on a click (the preset measured with the real claude:
// UloopEndToEndTests).
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Json;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;
using NUnit.Framework;

namespace Codiva.Tests
{
    [TestFixture]
    public class UloopTests
    {
        sealed class Files : IFileReader, IFileProbe, IFileWriter
        {
            public readonly Dictionary<string, string> Text = new Dictionary<string, string>();
            public readonly List<string> Writes = new List<string>();
            public string ReadText(string path) => Text.TryGetValue(path, out var t) ? t : null;
            public bool IsFile(string path) => Text.ContainsKey(path);
            public void WriteText(string path, string text) { Writes.Add(path); Text[path] = text; }
        }

        sealed class Runner : ICommandRunner
        {
            public readonly List<List<string>> Runs = new List<List<string>>();
            public CommandOutcome Outcome = new CommandOutcome { ExitCode = 0, Output = "added 1 package" };
            public Action<CommandOutcome> Pending;
            public bool Hold;
            public void Run(IReadOnlyList<string> argv, Action<CommandOutcome> done)
            {
                Runs.Add(argv.ToList());
                if (Hold) { Pending = done; return; }
                done(Outcome);
            }
        }

        const string Project = "/work/game";
        static readonly string Manifest = Path.Combine(Project, "Packages", "manifest.json");
        static readonly string Lock = Path.Combine(Project, "Packages", "packages-lock.json");

        // A manifest as Unity writes it (two spaces, scoped registries before the dependencies).
        const string UnityManifest = "{\n  \"scopedRegistries\": [\n    {\n      \"name\": \"dependencies\",\n      \"url\": \"https://package.openupm.com\",\n      \"scopes\": [\"com.example\"]\n    }\n  ],\n  \"dependencies\": {\n    \"com.unity.ugui\": \"1.0.0\",\n    \"com.unity.test-framework\": \"1.1.33\"\n  }\n}\n";

        static UloopPresence Usable => new UloopPresence { Package = true, Cli = "/usr/local/bin/uloop" };

        [Test]
        public void The_package_is_found_in_the_manifest_or_the_lock_file()
        {
            var files = new Files();
            Assert.IsFalse(Uloop.PackageInProject(files, Project), "no files");
            files.Text[Manifest] = UnityManifest;
            Assert.IsFalse(Uloop.PackageInProject(files, Project), "other packages only");
            files.Text[Manifest] = "{\"dependencies\":{\"io.github.hatayama.uloopmcp\":\"https://github.com/hatayama/unity-cli-loop.git?path=/Packages/src\"}}";
            Assert.IsTrue(Uloop.PackageInProject(files, Project));
            Assert.IsFalse(Uloop.PackageInProject(files, "/work/other"), "another project");
            // Embedded (upstream's own repository keeps it under Packages/src): the lock file lists it.
            files.Text[Manifest] = UnityManifest;
            files.Text[Lock] = "{\"dependencies\":{\"io.github.hatayama.uloopmcp\":{\"version\":\"file:src\",\"depth\":0,\"source\":\"embedded\"}}}";
            Assert.IsTrue(Uloop.PackageInProject(files, Project));
            files.Text[Lock] = "{not json";
            files.Text[Manifest] = "{\"dependencies\":{\"io.github.hatayama.uloopmcp.extra\":\"1.0.0\"},\"io.github.hatayama.uloopmcp\":\"x\"}";
            Assert.IsFalse(Uloop.PackageInProject(files, Project), "a broken file, a longer name, the name outside dependencies");
        }

        [Test]
        public void The_cli_is_the_first_uloop_on_path_and_relative_folders_are_skipped()
        {
            var files = new Files();
            files.Text["/opt/node/bin/uloop"] = "";
            files.Text["/usr/local/bin/uloop"] = "";
            files.Text["bin/uloop"] = "";
            Assert.AreEqual("/opt/node/bin/uloop", Uloop.FindCli("bin:/usr/bin:/opt/node/bin:/usr/local/bin", files));
            Assert.IsNull(Uloop.FindCli("bin:/usr/bin", files));
            Assert.IsNull(Uloop.FindCli("", files));
            Assert.IsNull(Uloop.FindCli(null, files));
            // Windows: npm's shim is uloop.cmd; folders are separated by ';' and may be quoted.
            var win = Path.Combine(@"C:\Users\u\AppData\Roaming\npm", "uloop.cmd");
            files.Text[Path.Combine("npm", "uloop.cmd")] = "";
            files.Text[win] = "";
            Assert.AreEqual(win, Uloop.FindCli(@"npm;C:\Windows;""C:\Users\u\AppData\Roaming\npm""", files, windows: true));
        }

        [Test]
        public void The_preset_is_exactly_four_prefix_rules()
        {
            CollectionAssert.AreEqual(new[] { "Bash(uloop compile:*)", "Bash(uloop get-logs:*)", "Bash(uloop run-tests:*)", "Bash(uloop list:*)" }, Uloop.PresetRules);
        }

        [Test]
        public void A_session_gets_the_rules_only_with_the_preset_on_and_the_steering_only_when_uloop_is_usable()
        {
            Func<CreateParams> gate = () => new CreateParams { AppendSystemPrompt = "gate", DisallowedTools = new List<string> { "Edit(Assets/**/*.cs)" } };
            foreach (var absent in new[] { null, new UloopPresence(), new UloopPresence { Package = true }, new UloopPresence { Cli = "/bin/uloop" } })
            {
                var create = Uloop.Apply(gate(), absent, true);
                Assert.IsNull(create.AllowedTools);
                Assert.AreEqual("gate", create.AppendSystemPrompt);
            }
            var off = Uloop.Apply(gate(), Usable, false);
            Assert.IsNull(off.AllowedTools, "off by default: nothing allowed in advance");
            Assert.AreEqual("gate\n\n" + Uloop.Steering(false), off.AppendSystemPrompt);
            var on = Uloop.Apply(gate(), Usable, true);
            CollectionAssert.AreEqual(Uloop.PresetRules, on.AllowedTools);
            Assert.AreEqual("gate\n\n" + Uloop.Steering(true), on.AppendSystemPrompt);
            CollectionAssert.AreEqual(new[] { "Edit(Assets/**/*.cs)" }, on.DisallowedTools);
            // Added to rules already there, once each.
            var more = gate();
            more.AllowedTools = new List<string> { "mcp__unity-ops__editor_state", "Bash(uloop list:*)" };
            CollectionAssert.AreEqual(new[] { "mcp__unity-ops__editor_state", "Bash(uloop list:*)", "Bash(uloop compile:*)", "Bash(uloop get-logs:*)", "Bash(uloop run-tests:*)" },
                Uloop.Apply(more, Usable, true).AllowedTools);
            Assert.AreEqual(Uloop.Steering(true), Uloop.Apply(new CreateParams(), Usable, true).AppendSystemPrompt);
        }

        [Test]
        public void The_panel_session_keeps_the_gate_and_adds_uloop_after_it()
        {
            using (var unity = new Codiva.Client.ThreadDispatcher("unity-main"))
            using (var server = new McpServer(new ToolRegistry(), new ToolRunner(unity)))
            {
                var create = PanelSession.Create("hi", Project, server, new PanelSessionInputs { Uloop = Usable, UloopPreset = true });
                CollectionAssert.AreEqual(ScriptGate.DisallowedTools, create.DisallowedTools);
                Assert.AreEqual(ScriptGate.Instructions(PanelSession.OpsServerName) + "\n\n" + Uloop.Steering(true), create.AppendSystemPrompt);
                CollectionAssert.AreEqual(Uloop.PresetRules, create.AllowedTools);
                Assert.AreEqual(Known.ApprovalPolicy.Ask, create.ApprovalPolicy.Mode);
                var plain = PanelSession.Create("hi", Project, server, new PanelSessionInputs { Uloop = new UloopPresence(), UloopPreset = true });
                Assert.IsNull(plain.AllowedTools);
                Assert.AreEqual(ScriptGate.Instructions(PanelSession.OpsServerName), plain.AppendSystemPrompt);
            }
        }

        [Test]
        public void The_steering_names_what_runs_and_what_asks()
        {
            var on = Uloop.Steering(true);
            foreach (var command in new[] { "`uloop compile`", "`uloop get-logs`", "`uloop run-tests`", "`uloop list`" }) StringAssert.Contains(command, on);
            StringAssert.Contains("run without asking", on);
            StringAssert.Contains("(execute-dynamic-code among them) asks the user first", on);
            StringAssert.Contains("Each uloop command asks the user first.", Uloop.Steering(false));
            StringAssert.DoesNotContain("without asking", Uloop.Steering(false));
        }

        [Test]
        public void The_manifest_gets_the_package_first_in_its_dependencies_and_keeps_the_rest()
        {
            var added = UloopManifest.AddPackage(UnityManifest, out var problem);
            Assert.IsNull(problem);
            Assert.AreEqual(UnityManifest.Replace("  \"dependencies\": {\n", "  \"dependencies\": {\n    \"io.github.hatayama.uloopmcp\": \"https://github.com/hatayama/unity-cli-loop.git?path=/Packages/src\",\n"), added);
            // CRLF and tabs, and an empty dependencies object.
            var crlf = "{\r\n\t\"dependencies\": {\r\n\t\t\"com.unity.ugui\": \"1.0.0\"\r\n\t}\r\n}";
            Assert.AreEqual("{\r\n\t\"dependencies\": {\r\n\t\t\"io.github.hatayama.uloopmcp\": \"" + Uloop.GitUrl + "\",\r\n\t\t\"com.unity.ugui\": \"1.0.0\"\r\n\t}\r\n}",
                UloopManifest.AddPackage(crlf, out problem));
            Assert.AreEqual("{\n  \"dependencies\": {\n    \"io.github.hatayama.uloopmcp\": \"" + Uloop.GitUrl + "\"\n  }\n}\n",
                UloopManifest.AddPackage("{\n  \"dependencies\": {}\n}\n", out problem));
            Assert.AreEqual("{\"dependencies\":{\n  \"io.github.hatayama.uloopmcp\": \"" + Uloop.GitUrl + "\",\"a\":\"1\"}}",
                UloopManifest.AddPackage("{\"dependencies\":{\"a\":\"1\"}}", out problem));
        }

        [Test]
        public void A_manifest_that_cannot_take_the_package_is_left_and_says_why()
        {
            Assert.IsNull(UloopManifest.AddPackage(null, out var problem));
            StringAssert.Contains("missing", problem);
            Assert.IsNull(UloopManifest.AddPackage("{not json", out problem));
            StringAssert.Contains("not JSON", problem);
            Assert.IsNull(UloopManifest.AddPackage("{\"scopedRegistries\":[]}", out problem));
            StringAssert.Contains("no \"dependencies\"", problem);
            Assert.IsNull(UloopManifest.AddPackage("{\"dependencies\":{\"io.github.hatayama.uloopmcp\":\"2.1.1\"}}", out problem));
            StringAssert.Contains("already", problem);
        }

        [Test]
        public void Nothing_runs_or_is_written_before_a_click_and_a_click_does_what_is_missing()
        {
            var files = new Files();
            files.Text[Manifest] = UnityManifest;
            var runner = new Runner();
            var presence = new UloopPresence();
            var install = new UloopInstall(runner, files, files, Project, () => presence);
            Assert.AreEqual(InstallState.Idle, install.State);
            Assert.AreEqual(0, runner.Runs.Count);
            Assert.AreEqual(0, files.Writes.Count);

            install.Click();
            Assert.AreEqual(new[] { Manifest }, files.Writes.ToArray());
            Assert.IsTrue(Uloop.PackageInProject(files, Project));
            Assert.AreEqual(1, runner.Runs.Count);
            CollectionAssert.AreEqual(new[] { "npm", "install", "-g", "uloop-cli" }, runner.Runs[0]);
            Assert.AreEqual(InstallState.Done, install.State);
            Assert.AreEqual("+ Packages/manifest.json: \"io.github.hatayama.uloopmcp\": \"" + Uloop.GitUrl + "\"\n$ npm install -g uloop-cli\nadded 1 package", install.Output(Language.En));
            Assert.IsTrue(install.ResolvePackages, "the manifest was written: Package Manager resolves once");
            Assert.IsFalse(install.ResolvePackages);

            // The package there, the CLI not: only npm. The CLI there, the package not: only the manifest.
            files.Writes.Clear();
            presence = new UloopPresence { Package = true };
            install = new UloopInstall(runner, files, files, Project, () => presence, "npm.cmd");
            install.Click();
            Assert.AreEqual(0, files.Writes.Count);
            Assert.IsFalse(install.ResolvePackages, "nothing written, nothing to resolve");
            CollectionAssert.AreEqual(new[] { "npm.cmd", "install", "-g", "uloop-cli" }, runner.Runs[1]);
            files.Text[Manifest] = UnityManifest;
            presence = new UloopPresence { Cli = "/usr/local/bin/uloop" };
            install = new UloopInstall(runner, files, files, Project, () => presence);
            install.Click();
            Assert.AreEqual(2, runner.Runs.Count, "npm not run with the CLI on PATH");
            Assert.AreEqual(1, files.Writes.Count);
            Assert.AreEqual(InstallState.Done, install.State);
        }

        [Test]
        public void A_failed_step_stops_the_install_and_its_output_is_kept()
        {
            var files = new Files();
            var runner = new Runner();
            var install = new UloopInstall(runner, files, files, Project, () => new UloopPresence());
            install.Click();
            Assert.AreEqual(InstallState.Failed, install.State, "no manifest");
            Assert.AreEqual(0, runner.Runs.Count, "npm is not run after the manifest step failed");
            Assert.AreEqual("Packages/manifest.json is missing or empty", install.Output(Language.En));

            files.Text[Manifest] = UnityManifest;
            runner.Outcome = new CommandOutcome { ExitCode = 243, Output = "npm ERR! code EACCES\n" };
            install.Click();
            Assert.AreEqual(InstallState.Failed, install.State);
            StringAssert.EndsWith("$ npm install -g uloop-cli\nnpm ERR! code EACCES\nexit 243", install.Output(Language.En));
            Assert.IsTrue(install.ResolvePackages, "the manifest was written before npm failed");
            runner.Outcome = new CommandOutcome { ExitCode = -1, Output = "No such file or directory" };
            new UloopInstall(runner, new Files(), new Files(), Project, () => new UloopPresence { Package = true }).Click();
            Assert.AreEqual(2, runner.Runs.Count);
        }

        [Test]
        public void A_click_while_running_does_nothing_more()
        {
            var files = new Files();
            var runner = new Runner { Hold = true };
            var install = new UloopInstall(runner, files, files, Project, () => new UloopPresence { Package = true });
            var changes = 0;
            install.Changed += () => changes++;
            install.Click();
            install.Click();
            Assert.AreEqual(1, runner.Runs.Count);
            Assert.AreEqual(InstallState.Running, install.State);
            Assert.IsFalse(install.ResolvePackages, "not while running");
            Assert.IsFalse(Uloop.OffersInstall(new UloopPresence(), install.State), "no button while it runs");
            runner.Pending(new CommandOutcome { ExitCode = 0, Output = "" });
            Assert.AreEqual(InstallState.Done, install.State);
            Assert.Greater(changes, 1);
        }

        [Test]
        public void The_manifest_is_written_whole_on_the_disk()
        {
            using (var dir = new TempDir("codiva-uloop-"))
            {
                var manifest = UloopManifest.Path(dir.Path);
                Directory.CreateDirectory(Path.GetDirectoryName(manifest));
                File.WriteAllText(manifest, UnityManifest);
                var disk = new AtomicWriter();
                var install = new UloopInstall(new Runner(), disk, disk, dir.Path, () => new UloopPresence { Cli = "/usr/local/bin/uloop" });
                install.Click();
                Assert.AreEqual(InstallState.Done, install.State, install.Output(Language.En));
                Assert.IsTrue(Uloop.PackageInProject(disk, dir.Path));
                StringAssert.StartsWith(UnityManifest.Substring(0, UnityManifest.IndexOf("\"dependencies\"")), File.ReadAllText(manifest));
                Assert.AreEqual(new[] { "manifest.json" }, Directory.GetFiles(Path.GetDirectoryName(manifest)).Select(Path.GetFileName).ToArray(), "no temporary file left");
            }
        }

        sealed class AtomicWriter : IFileReader, IFileWriter
        {
            public string ReadText(string path) => AtomicFile.Read(path);
            public void WriteText(string path, string text) => AtomicFile.Write(path, text);
        }

        [Test]
        public void The_settings_words_follow_the_state_in_both_languages()
        {
            foreach (var lang in new[] { Language.En, Language.Ja })
            {
                Assert.AreEqual(Strings.Get(Str.UloopNoPackage, lang), Uloop.StatusWords(new UloopPresence { Cli = "/bin/uloop" }, InstallState.Idle, lang));
                Assert.AreEqual(Strings.Get(Str.UloopNoCli, lang), Uloop.StatusWords(new UloopPresence { Package = true }, InstallState.Done, lang));
                Assert.AreEqual(Strings.Get(Str.UloopReady, lang), Uloop.StatusWords(Usable, InstallState.Idle, lang));
                Assert.AreEqual(Strings.Get(Str.UloopInstalling, lang), Uloop.StatusWords(Usable, InstallState.Running, lang));
                Assert.AreEqual(Strings.Get(Str.UloopInstallFailed, lang), Uloop.StatusWords(new UloopPresence(), InstallState.Failed, lang));
                StringAssert.EndsWith(":\nBash(uloop compile:*)\nBash(uloop get-logs:*)\nBash(uloop run-tests:*)\nBash(uloop list:*)", Uloop.PresetRulesWords(lang));
            }
            Assert.IsTrue(Uloop.OffersInstall(new UloopPresence { Package = true }, InstallState.Failed));
            Assert.IsFalse(Uloop.OffersInstall(Usable, InstallState.Idle));
            Assert.AreNotEqual(Strings.Get(Str.UloopPreset, Language.En), Strings.Get(Str.UloopPreset, Language.Ja));
        }
    }
}
