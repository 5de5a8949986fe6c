// Project profiles: instructions for the agent that a Unity project keeps in its own files,
// `<project>/.codiva-profiles/*.json` (the Agent Panel's `.uap-profiles`), each
//
//     { "name": "Our conventions", "instructions": "Prefix private fields with _ …",
//       "packages": ["com.unity.inputsystem"] }
//
// (`name` and `instructions` non-empty strings; `packages`, optional, the packages of which the
// project must have at least one for the profile to be sent; no other field). Anyone who commits
// to the repository — or the agent itself, which works in the project — can write such a file, so
// none reaches the agent until the user has read its whole text in the panel and approved it.
//
// An approval is HMAC-SHA256 over the project's directory, the file's name and the file's exact
// text, keyed with a random key of the user's (32 bytes, made once, never in the project): the
// user's files (IUserFiles; in the Editor `~/.config/codiva/unity/`, 0600) keep the key and the
// approvals. A changed text does not verify (it is "changed" and not sent until approved again);
// an approval copied from another user, from another project, or written without the key does not
// verify either; a file the agent writes during a session is new until the user approves it. The
// user approves the text the panel showed (not the file as it is at the click), and a new session
// reads each file again and sends only a text that verifies at that moment.
//
// Bounds: 16 files (by name), 16 KB a file, a name of 80 characters, instructions of 4000 (cut at
// a character boundary, and shown cut). Control and bidi characters are dropped before the text is
// shown or sent, so what the user reads is what the agent gets. A malformed file is listed with
// what is wrong with it; nothing here throws into the panel.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security.Cryptography;
using System.Text;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Protocol;

namespace Codiva.Unity
{
    /// The user's own small files, outside every project (the Editor's: `~/.config/codiva/unity/`).
    public interface IUserFiles
    {
        /// The text of `name`, or null when there is none.
        string Read(string name);
        /// Writes `name` whole, owner-only.
        void Write(string name, string text);
        /// Writes `name` only when there is none; false when one exists (left as it is).
        bool CreateOnce(string name, string text);
    }

    /// IUserFiles in a folder of the disk: written atomically and owner-only (AtomicFile).
    public sealed class UserConfigFiles : IUserFiles
    {
        readonly string dir;

        public UserConfigFiles(string dir) { this.dir = dir; }

        /// `$XDG_CONFIG_HOME/codiva/unity` (when absolute), else `~/.config/codiva/unity` — beside
        /// codiva's own `config.toml`.
        public static string DefaultDir()
        {
            var xdg = Environment.GetEnvironmentVariable("XDG_CONFIG_HOME");
            if (!string.IsNullOrEmpty(xdg) && Path.IsPathRooted(xdg)) return Path.Combine(xdg, "codiva", "unity");
            var home = Environment.GetEnvironmentVariable("HOME");
            if (string.IsNullOrEmpty(home)) home = Environment.GetFolderPath(Environment.SpecialFolder.UserProfile);
            return Path.Combine(home, ".config", "codiva", "unity");
        }

        public string Read(string name) => AtomicFile.Read(Path.Combine(dir, name));
        public void Write(string name, string text) => AtomicFile.WriteOwnerOnly(Path.Combine(dir, name), text);
        public bool CreateOnce(string name, string text) => AtomicFile.CreateOwnerOnly(Path.Combine(dir, name), text);
    }

    public enum ProjectProfileState { New, Approved, Changed, Invalid }

    /// What is wrong with a profile file: a catalog key and its argument.
    public sealed class ProfileProblem
    {
        public Str Key;
        public string Arg = "";
        public string Words(Language language) => Strings.Format(Key, language, Arg);
    }

    /// One file of `.codiva-profiles/` as read.
    public sealed class ProjectProfile
    {
        /// The file's name in the folder (`conventions.json`).
        public string File;
        /// One line, shown chars only (empty when invalid).
        public string Name = "";
        /// What the agent is told (cut to MaxInstructions).
        public string Instructions = "";
        /// The packages it is limited to (empty: every project).
        public List<string> Packages = new List<string>();
        /// The instructions were longer than MaxInstructions.
        public bool Cut;
        public ProfileProblem Problem;
        public ProjectProfileState State;
        /// The file's exact text, as read (what an approval covers).
        internal string Text;

        /// Whether the panel offers to read it (and so to approve it): not when invalid.
        public bool CanOpen => State != ProjectProfileState.Invalid;
        /// Whether the panel offers to revoke it: when an approval of the file is recorded.
        public bool CanRevoke => State == ProjectProfileState.Approved || State == ProjectProfileState.Changed;

        /// Whether it is sent for a project with `packages`.
        public bool AppliesTo(IPackageList packages)
        {
            if (Packages.Count == 0) return true;
            var names = packages?.Names ?? new string[0];
            return Packages.Any(names.Contains);
        }
    }

    /// The folder's profiles as read, and what could not be read at all.
    public sealed class ProfileListing
    {
        public readonly List<ProjectProfile> Profiles = new List<ProjectProfile>();
        /// Files past MaxFiles, not read.
        public int More;
        /// Why the folder (or the user's approvals) could not be read; null when it could.
        public string Problem;
    }

    /// The user's approvals: the key and the record, through IUserFiles.
    public sealed class ProfileApprovals
    {
        public const string KeyFile = "project-profiles.key";
        public const string RecordFile = "project-profiles.json";
        /// Approvals kept (the oldest go first).
        public const int MaxRecords = 1000;
        const int KeyBytes = 32;

        readonly IUserFiles files;

        public ProfileApprovals(IUserFiles files) { this.files = files; }

        /// The user's key, made on first use (kept when another Editor made it first). Null, with
        /// `problem`, when it cannot be read or made: then nothing verifies.
        byte[] Key(out string problem)
        {
            problem = null;
            try
            {
                var text = files.Read(KeyFile);
                if (text == null)
                {
                    var made = new byte[KeyBytes];
                    using (var random = RandomNumberGenerator.Create()) random.GetBytes(made);
                    files.CreateOnce(KeyFile, Convert.ToBase64String(made) + "\n");
                    text = files.Read(KeyFile);
                }
                var key = Convert.FromBase64String((text ?? "").Trim());
                if (key.Length == KeyBytes) return key;
                problem = KeyFile + ": not a key of " + KeyBytes + " bytes";
            }
            catch (FormatException) { problem = KeyFile + ": not a key (base64)"; }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException) { problem = KeyFile + ": " + e.Message; }
            return null;
        }

        /// Why approvals cannot be checked (null when they can).
        public string Problem
        {
            get
            {
                Key(out var problem);
                return problem;
            }
        }

        /// The approval of `text` as the file `file` of the project at `projectDir`.
        static string Mac(byte[] key, string projectDir, string file, string text)
        {
            var message = "codiva project profile 1\0" + Path.GetFullPath(projectDir).TrimEnd('/', '\\') + "\0" + file + "\0" + text;
            using (var hmac = new HMACSHA256(key))
                return BitConverter.ToString(hmac.ComputeHash(new UTF8Encoding(false).GetBytes(message))).Replace("-", "").ToLowerInvariant();
        }

        /// Whether `text` is what the user approved for the file (New: no approval of the file at all).
        public ProjectProfileState StateOf(string projectDir, string file, string text)
        {
            var recorded = Recorded(projectDir, file);
            if (recorded == null) return ProjectProfileState.New;
            var key = Key(out _);
            return key != null && SameMac(recorded, Mac(key, projectDir, file, text)) ? ProjectProfileState.Approved : ProjectProfileState.Changed;
        }

        /// Records the user's approval of `text`; false (nothing recorded) when the key cannot be had.
        public bool Approve(string projectDir, string file, string text)
        {
            var key = Key(out _);
            if (key == null) return false;
            var records = Records().Where(r => !Is(r, projectDir, file)).ToList();
            records.Add(new Dictionary<string, object> { { "project", Project(projectDir) }, { "file", file }, { "mac", Mac(key, projectDir, file, text) } });
            Save(records.Skip(Math.Max(0, records.Count - MaxRecords)).ToList());
            return true;
        }

        public void Revoke(string projectDir, string file) => Save(Records().Where(r => !Is(r, projectDir, file)).ToList());

        string Recorded(string projectDir, string file) => JsonRead.Str(Records().LastOrDefault(r => Is(r, projectDir, file)), "mac");

        static string Project(string projectDir) => Path.GetFullPath(projectDir).TrimEnd('/', '\\');

        static bool Is(object record, string projectDir, string file) =>
            JsonRead.Str(record, "project") == Project(projectDir) && JsonRead.Str(record, "file") == file;

        // The record; an unreadable one is no approval (and is replaced at the next approval).
        List<object> Records()
        {
            try
            {
                var text = files.Read(RecordFile);
                if (text == null) return new List<object>();
                return JsonRead.Arr(JsonText.Parse(text), "approvals")?.Where(r => r is Dictionary<string, object>).ToList() ?? new List<object>();
            }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException || e is JsonException) { return new List<object>(); }
        }

        void Save(List<object> records) =>
            files.Write(RecordFile, JsonText.Write(new Dictionary<string, object> { { "version", 1L }, { "approvals", records } }));

        // Fixed-time comparison.
        static bool SameMac(string a, string b)
        {
            if (a == null || b == null || a.Length != b.Length) return false;
            var diff = 0;
            for (var i = 0; i < a.Length; i++) diff |= a[i] ^ b[i];
            return diff == 0;
        }
    }

    /// The panel's project profiles: the list with each one's state, the one being read, approve
    /// (what was read) and revoke, and the approved ones for a new session.
    public sealed class ProjectProfiles
    {
        public const string Folder = ".codiva-profiles";
        public const int MaxFiles = 16;
        public const long MaxFileBytes = 16 * 1024;
        public const int MaxName = 80;
        public const int MaxInstructions = 4000;
        public const int MaxPackages = 16;
        static readonly string[] Fields = { "name", "instructions", "packages" };

        readonly string projectDir;
        readonly ProfileApprovals approvals;

        public ProjectProfiles(string projectDir, ProfileApprovals approvals)
        {
            this.projectDir = projectDir;
            this.approvals = approvals;
            Refresh();
        }

        /// The folder as last read (Refresh).
        public ProfileListing Listing { get; private set; }

        /// The profile whose whole text the panel shows (null: none).
        public ProjectProfile Reading { get; private set; }

        /// Reads the folder again (the one being read stays as it was shown).
        public void Refresh() => Listing = Read();

        /// Shows the whole text of `file` (as listed); an invalid one is not opened.
        public void Open(string file)
        {
            var profile = Listing.Profiles.FirstOrDefault(p => p.File == file);
            Reading = profile != null && profile.CanOpen ? profile : null;
        }

        public void Close() => Reading = null;

        /// Approves the text being read — the one shown, even if the file changed since — and
        /// closes it. False when nothing is being read or the key cannot be had.
        public bool Approve()
        {
            var shown = Reading;
            if (shown == null) return false;
            var done = Saved(() => approvals.Approve(projectDir, shown.File, shown.Text));
            Reading = null;
            Refresh();
            return done;
        }

        public void Revoke(string file)
        {
            Saved(() => { approvals.Revoke(projectDir, file); return true; });
            if (Reading?.File == file) Reading = null;
            Refresh();
        }

        /// Why the last approval or revocation could not be written (null when it was).
        public string NotSaved { get; private set; }

        bool Saved(Func<bool> change)
        {
            NotSaved = null;
            try { return change(); }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException)
            {
                NotSaved = e.Message;
                return false;
            }
        }

        /// The profiles a new session is told: the folder read now, those approved for their text
        /// as it is now and applying to `packages`, in the files' order.
        public List<ProjectProfile> ForSession(IPackageList packages) =>
            Read().Profiles.Where(p => p.State == ProjectProfileState.Approved && p.AppliesTo(packages)).ToList();

        /// `create` with the profiles' instructions after what it already appends (the script
        /// gate's, the extension profiles'); the same params, for chaining.
        public static CreateParams Apply(CreateParams create, IEnumerable<ProjectProfile> profiles)
        {
            var list = (profiles ?? new ProjectProfile[0]).Where(p => p.State == ProjectProfileState.Approved).ToList();
            if (list.Count == 0) return create;
            var text = new StringBuilder("The project's own instructions (files under " + Folder + "/, each read and approved by the user):");
            foreach (var profile in list) text.Append("\n\n## ").Append(profile.Name).Append('\n').Append(profile.Instructions);
            return create.AppendInstructions(text.ToString());
        }

        // ---- What the panel shows (rich text: everything from the file through RichText.Escape).

        /// The folder's heading.
        public string HeadingRich(Language language) => RichText.Escape(Strings.Format(Str.ProjectProfilesTitle, language, Folder + "/"));

        /// A profile's line in the list: name, file, state.
        public static string RowRich(ProjectProfile profile, Language language)
        {
            var state = profile.State == ProjectProfileState.Invalid ? Strings.Format(Str.ProjectProfileInvalid, language, profile.Problem?.Words(language) ?? "")
                : Strings.Get(profile.State == ProjectProfileState.Approved ? Str.ProjectProfileApproved
                    : profile.State == ProjectProfileState.Changed ? Str.ProjectProfileChanged : Str.ProjectProfileNew, language);
            var name = profile.Name.Length > 0 ? "<b>" + RichText.Escape(profile.Name) + "</b> " : "";
            return name + RichText.Escape("(" + Words.OneLine(profile.File) + ") — " + state);
        }

        /// What is said under the list (none, files not read, approvals that cannot be checked).
        public string FootRich(Language language)
        {
            var lines = new List<string>();
            if (Listing.Profiles.Count == 0 && Listing.More == 0) lines.Add(Strings.Format(Str.ProjectProfilesNone, language, Folder + "/"));
            if (Listing.More > 0) lines.Add(Strings.Format(Str.ProjectProfilesMore, language, Listing.More, MaxFiles));
            if (Listing.Problem != null) lines.Add(Strings.Format(Str.ProjectProfilesProblem, language, Listing.Problem));
            if (NotSaved != null) lines.Add(Strings.Format(Str.ProjectProfileNotSaved, language, NotSaved));
            return RichText.Escape(string.Join("\n", lines));
        }

        /// The whole text of the profile being read, as the agent would be told it.
        public string ReadingRich(Language language)
        {
            var profile = Reading;
            if (profile == null) return "";
            var text = new StringBuilder();
            text.Append(RichText.Escape(Strings.Format(Str.ProjectProfileReading, language, Folder + "/" + Words.OneLine(profile.File)))).Append('\n');
            if (profile.State == ProjectProfileState.Changed) text.Append(RichText.Escape(Strings.Get(Str.ProjectProfileChanged, language))).Append('\n');
            text.Append("<b>").Append(RichText.Escape(profile.Name)).Append("</b>\n");
            if (profile.Packages.Count > 0) text.Append(RichText.Escape(Strings.Format(Str.ProjectProfilePackages, language, string.Join(", ", profile.Packages)))).Append('\n');
            text.Append(RichText.Escape(profile.Instructions));
            if (profile.Cut) text.Append('\n').Append(RichText.Escape(Strings.Format(Str.ProjectProfileCut, language, MaxInstructions)));
            return text.ToString();
        }

        // ---- Reading the folder.

        ProfileListing Read()
        {
            var listing = new ProfileListing();
            var folder = Path.Combine(projectDir, Folder);
            try
            {
                if (!Directory.Exists(folder)) return listing;
                if (IsLink(folder)) { listing.Problem = Folder + ": a link (not followed)"; return listing; }
                var names = Directory.GetFiles(folder, "*.json").Select(Path.GetFileName).OrderBy(n => n, StringComparer.Ordinal).ToList();
                listing.More = Math.Max(0, names.Count - MaxFiles);
                foreach (var name in names.Take(MaxFiles)) listing.Profiles.Add(ReadOne(Path.Combine(folder, name), name));
                listing.Problem = approvals.Problem;
            }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException) { listing.Problem = Folder + ": " + e.Message; }
            return listing;
        }

        ProjectProfile ReadOne(string path, string file)
        {
            var profile = new ProjectProfile { File = file, State = ProjectProfileState.Invalid };
            try
            {
                if (IsLink(path)) return Invalid(profile, Str.ProfileProblemLink, "");
                if (new FileInfo(path).Length > MaxFileBytes) return Invalid(profile, Str.ProfileProblemTooLarge, (MaxFileBytes / 1024).ToString());
                profile.Text = File.ReadAllText(path, new UTF8Encoding(false));
            }
            catch (Exception e) when (e is IOException || e is UnauthorizedAccessException) { return Invalid(profile, Str.ProfileProblemUnreadable, e.Message); }
            object root;
            try { root = JsonText.Parse(profile.Text); }
            catch (JsonException e) { return Invalid(profile, Str.ProfileProblemNotJson, e.Message); }
            var json = JsonRead.Obj(root);
            var fields = "\"" + string.Join("\", \"", Fields) + "\"";
            if (json == null) return Invalid(profile, Str.ProfileProblemNotObject, fields);
            var unknown = json.Keys.FirstOrDefault(k => !Fields.Contains(k));
            if (unknown != null) return Invalid(profile, Str.ProfileProblemUnknownField, "\"" + Words.OneLine(unknown, 40) + "\" (" + fields + ")");
            profile.Name = Words.OneLine(JsonRead.Str(json, "name"), MaxName);
            if (profile.Name.Length == 0) return Invalid(profile, Str.ProfileProblemNeedsText, "\"name\"");
            var instructions = Shown(JsonRead.Str(json, "instructions") ?? "").Trim();
            if (instructions.Length == 0) return Invalid(profile, Str.ProfileProblemNeedsText, "\"instructions\"");
            profile.Cut = instructions.Length > MaxInstructions;
            profile.Instructions = Words.Cut(instructions, MaxInstructions);
            if (json.ContainsKey("packages"))
            {
                var packages = json["packages"] as List<object>;
                if (packages == null || packages.Count > MaxPackages || packages.Any(p => !(p is string s) || s.Length == 0 || Words.OneLine(s, 214) != s))
                    return Invalid(profile, Str.ProfileProblemPackages, "\"packages\"");
                profile.Packages = packages.Cast<string>().ToList();
            }
            profile.Problem = null;
            profile.State = approvals.StateOf(projectDir, file, profile.Text);
            return profile;
        }

        static ProjectProfile Invalid(ProjectProfile profile, Str key, string arg)
        {
            profile.State = ProjectProfileState.Invalid;
            profile.Problem = new ProfileProblem { Key = key, Arg = arg ?? "" };
            return profile;
        }

        // Newlines and tabs kept, "\r\n" as "\n"; every other character Words.Shown drops goes.
        static string Shown(string text)
        {
            var kept = new StringBuilder(text.Length);
            foreach (var c in text.Replace("\r\n", "\n"))
                if (c == '\n' || c == '\t' || Words.Shown(c)) kept.Append(c);
            return kept.ToString();
        }

        static bool IsLink(string path) => (File.GetAttributes(path) & FileAttributes.ReparsePoint) != 0;
    }
}
