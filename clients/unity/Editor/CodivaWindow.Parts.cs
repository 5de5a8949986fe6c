// The panel's other parts, bound the same way (Core decides, this binds): the context chips and
// image attachments, slash completion, the model / mode / agent pickers, login, the history of
// the repository's sessions, sending and creating sessions.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Codiva.Client;
using Codiva.Ops;
using Codiva.Panel;
using Codiva.Protocol;
using Codiva.Unity;
using UnityEditor;
using UnityEngine;
using UnityEngine.UIElements;

namespace Codiva.Editor
{
    public sealed partial class CodivaWindow
    {
        readonly Dictionary<string, LoginModel> logins = new Dictionary<string, LoginModel>();
        readonly Dictionary<string, DiscardFlow> discards = new Dictionary<string, DiscardFlow>();

        void Attach(ContextChip chip)
        {
            if (chip != null) chips.Add(chip);
            Refresh();
        }

        void AttachImage()
        {
            var path = EditorUtility.OpenFilePanel(Strings.Get(Str.AttachImage, Lang), "", "png,jpg,jpeg,gif,webp");
            if (string.IsNullOrEmpty(path)) return;
            images.Add(Path.GetFileName(path), File.ReadAllBytes(path), Lang);
            Refresh();
        }

        const string SoundPref = "Codiva.Sound";
        // Made with the settings (Application.platform is not read in a field initializer), its
        // changes shown by the settings built last.
        PluginInstall pluginInstall;
        Action pluginShow;

        // The settings foldout: the console ignore patterns (one per line, in EditorPrefs; the
        // digest takes them at once) and the sound of notices.
        VisualElement Settings(Language lang)
        {
            var settings = new Foldout { text = Strings.Get(Str.Settings, lang), value = false };
            var patterns = new TextField { multiline = true, value = EditorPrefs.GetString(CodivaHost.ConsoleIgnorePref, ""), tooltip = Strings.Get(Str.ConsoleIgnorePatterns, lang) };
            patterns.RegisterValueChangedCallback(e =>
            {
                EditorPrefs.SetString(CodivaHost.ConsoleIgnorePref, e.newValue);
                CodivaHost.Console.SetIgnore(e.newValue.Split('\n'));
            });
            settings.Add(new Label(RichText.Escape(Strings.Get(Str.ConsoleIgnorePatterns, lang))));
            settings.Add(patterns);
            var sound = new Toggle(RichText.Escape(Strings.Get(Str.SoundOnNotice, lang))) { value = EditorPrefs.GetBool(SoundPref, true) };
            sound.RegisterValueChangedCallback(e => EditorPrefs.SetBool(SoundPref, e.newValue));
            settings.Add(sound);
            settings.Add(new Label(RichText.Escape(ExtensionProfiles.Words(ExtensionProfiles.Detect(new ManifestPackages(CodivaHost.ProjectDir)), lang))) { style = { whiteSpace = WhiteSpace.Normal } });
            // The project's own profiles: read, approved, revoked here (ProjectProfilesPane.cs).
            settings.Add(ProjectProfilesPane(lang));
            // The Unity official plugin: its state, and its install only on this button's click.
            var plugin = new Label("") { style = { whiteSpace = WhiteSpace.Normal } };
            var pluginOutput = new Label("") { style = { whiteSpace = WhiteSpace.Normal } };
            if (pluginInstall == null)
            {
                pluginInstall = new PluginInstall(EditorCommands.Runner());
                pluginInstall.Changed += () => CodivaHost.Dispatcher?.Post(() => pluginShow?.Invoke());
            }
            pluginShow = () =>
            {
                var installed = UnityPlugin.Installed(new DiskFiles(), DiskFiles.ClaudeDir());
                plugin.text = RichText.Escape(UnityPlugin.StatusWords(installed, pluginInstall.State, lang));
                pluginOutput.text = RichText.Escape(pluginInstall.Output(lang));
            };
            settings.Add(plugin);
            settings.Add(new Button(pluginInstall.Click) { text = Strings.Get(Str.PluginInstall, lang) });
            settings.Add(pluginOutput);
            pluginShow();
            // uLoop: what the project has, the preset, its install only on a click.
            settings.Add(UloopSettings(lang));
            return settings;
        }

        // A pin where the Scene view looks (its pivot); the agent reads it with marker_list.
        void DropPin()
        {
            var view = SceneView.lastActiveSceneView;
            if (view == null) return;
            var at = view.pivot;
            CodivaHost.Markers.Pin(new Point3(at.x, at.y, at.z));
        }

        string dropRefusals = "";

        // The clipboard's image through the desktop's helper (off the Editor's thread: it may
        // take up to its time), attached like a file; what went wrong in words.
        void PasteImage()
        {
            var mac = Application.platform == RuntimePlatform.OSXEditor;
            Task.Run(() => ClipboardImage.ReadNow(mac)).ContinueWith(t => CodivaHost.Dispatcher.Post(() =>
            {
                dropRefusals = t.Result.AttachTo(images, Lang);
                Refresh();
            }));
        }

        void Drop()
        {
            DragAndDrop.AcceptDrag();
            var objects = (DragAndDrop.objectReferences ?? new UnityEngine.Object[0]).OfType<GameObject>().ToList();
            foreach (var obj in objects) chips.Add(SelectionChip.Of(UnitySelection.Of(obj)));
            // An asset object dragged from the Project window comes with its path too: files
            // only for what is not an object already attached.
            var paths = objects.Count > 0 ? new string[0] : DragAndDrop.paths ?? new string[0];
            dropRefusals = string.Join("\n", DroppedFiles.Attach(paths, CodivaHost.ProjectDir, images, Lang));
            Refresh();
        }

        void BindChips()
        {
            foreach (var chip in chips)
                chipBar.Add(new Button(() => { chips.Remove(chip); Refresh(); }) { text = RichText.Escape("[" + chip.Kind + "] " + chip.Label) + " ×" });
            for (var i = 0; i < images.Items.Count; i++)
            {
                var index = i;
                chipBar.Add(new Button(() => { images.Remove(index); Refresh(); }) { text = RichText.Escape(images.Items[i].Name) + " ×" });
            }
            chipBar.Add(new Label(RichText.Escape(dropRefusals.Length > 0 ? dropRefusals : images.LastRefusal)));
        }

        // The catalog's matches under the composer; a click completes the command.
        void ShowSlash()
        {
            slashList.Clear();
            for (var i = 0; i < slash.Items.Count; i++)
            {
                var index = i;
                slashList.Add(new Button(() =>
                {
                    slash.Move(index - slash.Selected);
                    composer.value = slash.Accept();
                    ShowSlash();
                }) { text = slash.Items[i].Rich });
            }
        }

        // Buttons that open a menu of Core's picker items (the current one checked, the disabled
        // ones greyed).
        void BindPickers(CodivaClient client, SessionView view, Language lang)
        {
            var session = selected;
            var capabilities = client.Store.CapabilitiesOf(session);
            var agent = client.Store.AgentNamed(view.Row?.Agent);
            if (Pickers.CanSetModel(capabilities))
                pickers.Add(MenuButton(Strings.Get(Str.PickModel, lang), Pickers.Models(view, agent, lang), item => actions.SetModel(Pickers.ChooseModel(session, item))));
            if (Pickers.CanSetMode(capabilities))
                pickers.Add(MenuButton(Strings.Get(Str.PickMode, lang), Pickers.PermissionModes(view, lang), item => actions.SetMode(Pickers.ChooseMode(session, item))));
            pickers.Add(MenuButton(Strings.Get(Str.PickAgent, lang), Pickers.Agents(client.Store.Agents, view.Row?.Agent, lang), item => actions.SetAgent(Pickers.ChooseAgent(session, item))));
            // Auto-approve: the level the user picks is codiva's approval policy; it is shown as
            // picked once codiva took it.
            var level = CodivaHost.Approvals.Of(session);
            var approve = MenuButton("", AutoApprove.Items(level, CodivaHost.Tools, lang), item =>
            {
                var chosen = AutoApprove.LevelOf(item);
                client.Request(Methods.SessionSetApprovalPolicy, AutoApprove.Choose(session, chosen, CodivaHost.Tools), _ => { CodivaHost.Approvals.Set(session, chosen); Refresh(); });
            });
            approve.text = RichText.Escape(AutoApprove.ButtonWords(level, lang));
            pickers.Add(approve);
        }

        static Button MenuButton(string name, List<PickerItem> items, Action<PickerItem> choose)
        {
            var current = items.FirstOrDefault(i => i.Current);
            return new Button(() =>
            {
                var menu = new GenericMenu();
                foreach (var item in items)
                {
                    var content = new GUIContent(item.Label, item.Detail ?? "");
                    if (item.Enabled) menu.AddItem(content, item.Current, () => choose(item));
                    else menu.AddDisabledItem(content, item.Current);
                }
                menu.ShowAsContext();
            }) { text = RichText.Escape(name + ": " + (current?.Label ?? "—")) };
        }

        LoginModel LoginFor(CodivaClient client, string agent)
        {
            LoginModel login;
            if (!logins.TryGetValue(agent, out login)) logins[agent] = login = new LoginModel(agent);
            login.SetChecked(client.Store.AgentNamed(agent)?.Login);
            return login;
        }

        // The login card of the selected session's agent (or the default agent's): what Core's
        // LoginModel says, with the buttons it offers.
        void BindLogin(CodivaClient client, SessionView view, Language lang)
        {
            var agent = view?.Row?.Agent ?? client.Store.Agents.FirstOrDefault(a => a.Default)?.Id;
            if (agent == null) return;
            var login = LoginFor(client, agent);
            loginPane.Add(new Label(RichText.Escape(login.Describe(lang))) { style = { whiteSpace = WhiteSpace.Normal } });
            var row = Row();
            if (login.OffersLogin) row.Add(new Button(() => Then(actions.Login(login))) { text = Strings.Get(Str.LoginStart, lang) });
            if (login.Url != null) row.Add(new Button(() => Application.OpenURL(login.Url)) { text = Strings.Get(Str.LoginOpen, lang) });
            foreach (var method in login.Methods)
                row.Add(new Button(() => Then(actions.LoginInput(login.ChooseMethod(method.Id)))) { text = RichText.Escape(method.Name) });
            if (login.Busy) row.Add(new Button(() => Then(actions.CancelLogin(login.Cancel()))) { text = Strings.Get(Str.Cancel, lang) });
            loginPane.Add(row);
            if (login.AcceptsCode)
            {
                var code = new TextField { tooltip = Strings.Get(Str.LoginEnterCode, lang) };
                loginPane.Add(code);
                loginPane.Add(new Button(() => Then(actions.LoginInput(login.SubmitCode(code.value)))) { text = Strings.Get(Str.Submit, lang) });
            }
        }

        void OnLoginProgress(LoginProgressParams progress)
        {
            LoginModel login;
            if (progress?.Agent != null && logins.TryGetValue(progress.Agent, out login) && login.Apply(progress)) Refresh();
        }

        // The repository's sessions: open, rename, discard (previewed, then confirmed), restore;
        // then the conversations begun outside codiva and the groups of attempts.
        void BindHistory(CodivaClient client, Language lang)
        {
            historyPane.Clear();
            foreach (var row in History.Rows(client.Store))
            {
                var element = new VisualElement();
                element.Add(new Label(row.Rich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
                var buttons = Row();
                var id = row.Id;
                if (row.CanOpen) buttons.Add(new Button(() => { showHistory = false; Select(id); }) { text = Strings.Get(Str.HistoryOpen, lang) });
                if (row.CanRename)
                {
                    var title = new TextField { value = row.Title };
                    buttons.Add(title);
                    buttons.Add(new Button(() => Then(actions.Rename(History.Rename(id, title.value)))) { text = Strings.Get(Str.HistoryRename, lang) });
                }
                if (row.CanDiscard)
                {
                    DiscardFlow flow;
                    discards.TryGetValue(id, out flow);
                    if (flow?.Stage == DiscardStage.Confirming)
                    {
                        element.Add(new Label(RichText.Escape(flow.Question(lang))) { style = { whiteSpace = WhiteSpace.Normal } });
                        buttons.Add(new Button(() => Then(actions.Discard(flow, flow.Confirm()))) { text = Strings.Get(Str.HistoryDiscard, lang) });
                        buttons.Add(new Button(() => { discards.Remove(id); Refresh(); }) { text = Strings.Get(Str.Cancel, lang) });
                    }
                    else
                    {
                        buttons.Add(new Button(() => { var f = discards[id] = new DiscardFlow(id); Then(actions.Discard(f, f.Begin())); }) { text = Strings.Get(Str.HistoryDiscard, lang) });
                        element.Add(new Label(RichText.Escape(flow?.Error ?? "")));
                    }
                }
                if (row.CanRestore) buttons.Add(new Button(() => Then(actions.Restore(History.Restore(row)))) { text = Strings.Get(Str.HistoryRestore, lang) });
                element.Add(buttons);
                historyPane.Add(element);
            }
            // Conversations begun outside codiva, and the groups of attempts (CodivaWindow.Outside.cs).
            BindOutside(client, lang);
            BindGroups(client, lang);
        }

        // A request's answer redraws the window (on the Editor's thread).
        void Then(Task task) => task?.ContinueWith(_ => CodivaHost.Dispatcher.Post(Refresh));

        // Through the host's queue: held while Unity compiles (SendQueue decides).
        void Send()
        {
            if (selected == null) return;
            CodivaHost.Sends.Send(selected, ContextBlock.Attach(composer.value, chips), images.Take());
            composer.value = "";
            chips.Clear();
            Refresh();
        }

        // What waits for the compile and what was given back (each with its words), and a
        // button that clears the latter.
        void BindSends(Language lang)
        {
            sends.Clear();
            var queue = CodivaHost.Sends;
            if (queue == null) return;
            if (queue.Waiting > 0) sends.Add(new Label(queue.WaitingRich(lang)));
            foreach (var back in queue.Returned) sends.Add(new Label(back.Rich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
            if (queue.Returned.Count > 0) sends.Add(new Button(queue.Dismiss) { text = Strings.Get(Str.Cancel, lang) });
        }

        void NewSession()
        {
            // What each feature gives the session (the order and the rules: PanelSession.Create).
            var packages = new ManifestPackages(CodivaHost.ProjectDir);
            var parameters = PanelSession.Create(ContextBlock.Attach(composer.value, chips), CodivaHost.ProjectDir, CodivaHost.Ops, new PanelSessionInputs
            {
                Uloop = UloopHost.Detect(),
                UloopPreset = UloopHost.Preset,
                ExtensionProfiles = ExtensionProfiles.Detect(packages),
                UnityPluginInstalled = UnityPlugin.Installed(new DiskFiles(), DiskFiles.ClaudeDir()),
                // Each approved file read and verified again now.
                ProjectProfiles = ProjectProfilesModel().ForSession(packages),
                Images = images.Take(),
            });
            CodivaHost.Client.CreateSession(parameters, result => Select(result.Session.Id));
            composer.value = "";
            chips.Clear();
        }
    }
}
