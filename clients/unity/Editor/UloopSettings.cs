// The Editor's side of uLoop (Core/Unity/Uloop.cs, UloopInstall.cs): the disk as IFileReader,
// IFileProbe and IFileWriter (AtomicFile: the manifest written whole), the Editor's PATH, the
// preset's choice in EditorPrefs (off unless the user turned it on), and the settings' part: what
// the project has, the preset's toggle with the exact rules it adds, the install button (shown
// while something is missing; it runs only on its click) and what the install did. After the
// manifest is written, Package Manager is asked to resolve the project's packages.
using System;
using System.IO;
using Codiva.Panel;
using Codiva.Unity;
using UnityEditor;
using UnityEngine.UIElements;

namespace Codiva.Editor
{
    public sealed class UloopDisk : IFileReader, IFileProbe, IFileWriter
    {
        readonly DiskFiles files = new DiskFiles();
        public string ReadText(string path) => files.ReadText(path);
        public bool IsFile(string path) => File.Exists(path);
        public void WriteText(string path, string text) => AtomicFile.Write(path, text);
    }

    public static class UloopHost
    {
        public const string PresetPref = "Codiva.UloopPreset";
        static readonly UloopDisk disk = new UloopDisk();
        /// Windows' PATH is separated by ';' and npm installs `uloop.cmd` and `npm.cmd`.
        static bool Windows => Path.PathSeparator == ';';

        public static UloopPresence Detect() =>
            Uloop.Detect(disk, disk, CodivaHost.ProjectDir, Environment.GetEnvironmentVariable("PATH"), Windows);

        public static bool Preset => EditorPrefs.GetBool(PresetPref, false);

        public static UloopInstall NewInstall() =>
            new UloopInstall(EditorCommands.Runner(), disk, disk, CodivaHost.ProjectDir, Detect, Windows ? "npm.cmd" : "npm");
    }

    public sealed partial class CodivaWindow
    {
        UloopInstall uloopInstall;
        Action uloopShow;

        VisualElement UloopSettings(Language lang)
        {
            if (uloopInstall == null)
            {
                uloopInstall = UloopHost.NewInstall();
                uloopInstall.Changed += () => CodivaHost.Dispatcher?.Post(() =>
                {
                    if (uloopInstall.ResolvePackages) UnityEditor.PackageManager.Client.Resolve();
                    uloopShow?.Invoke();
                });
            }
            var part = new VisualElement();
            var status = new Label("") { style = { whiteSpace = WhiteSpace.Normal } };
            var output = new Label("") { style = { whiteSpace = WhiteSpace.Normal } };
            var install = new Button(uloopInstall.Click) { text = Strings.Get(Str.UloopInstall, lang) };
            var preset = new Toggle(RichText.Escape(Uloop.PresetWords(lang))) { value = UloopHost.Preset };
            preset.RegisterValueChangedCallback(e => EditorPrefs.SetBool(UloopHost.PresetPref, e.newValue));
            uloopShow = () =>
            {
                var presence = UloopHost.Detect();
                status.text = RichText.Escape(Uloop.StatusWords(presence, uloopInstall.State, lang));
                install.style.display = Uloop.OffersInstall(presence, uloopInstall.State) ? DisplayStyle.Flex : DisplayStyle.None;
                output.text = RichText.Escape(uloopInstall.Output(lang));
            };
            part.Add(status);
            part.Add(preset);
            part.Add(new Label(RichText.Escape(Uloop.PresetRulesWords(lang))) { style = { whiteSpace = WhiteSpace.Normal } });
            part.Add(install);
            part.Add(output);
            uloopShow();
            return part;
        }
    }
}
