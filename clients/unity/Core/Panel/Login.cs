// Logging an agent in through codiva (`agents/login`, docs/serve-api.md): codiva runs the agent's
// own login command where the agents run and reports it as `agents/loginProgress` — the page to
// open, a code to show or to paste back, the ways to log in to choose from, the variables an
// API-key way needs, and the end (`succeeded`, `failed`, `cancelled`). This model holds one
// agent's login as those reports say it, and builds the requests (`agents/login`,
// `agents/loginInput`, `agents/loginCancel`). codiva stores no credential; neither does this.
using System;
using System.Collections.Generic;
using System.Linq;
using Codiva.Protocol;

namespace Codiva.Panel
{
    public enum LoginStage { Idle, Starting, Running, Succeeded, Failed, Cancelled }

    public sealed class LoginModel
    {
        public readonly string Agent;
        public LoginStage Stage { get; private set; } = LoginStage.Idle;
        /// The agent's own login check (`agents/list`'s `login`), until a login here ends.
        public LoginState Checked { get; private set; }
        public string LoginId { get; private set; }
        /// The page to open: only an http(s) address (null otherwise).
        public string Url { get; private set; }
        /// A one-time code to enter on that page (plain).
        public string Code { get; private set; }
        /// The login reads a code the page shows (a field to paste it into).
        public bool AcceptsCode { get; private set; }
        /// The ways to log in the agent offers, to choose one of (empty: none to choose).
        public List<LoginMethod> Methods { get; private set; } = new List<LoginMethod>();
        /// Variables an API-key way needs set where the agents run.
        public List<string> EnvVars { get; private set; } = new List<string>();
        public string Error { get; private set; }
        /// Its last lines of output (escape sequences removed by codiva; one line each here).
        public List<string> Output { get; private set; } = new List<string>();

        public LoginModel(string agent, LoginState checkedState = null)
        {
            Agent = agent;
            Checked = checkedState;
        }

        public bool Busy => Stage == LoginStage.Starting || Stage == LoginStage.Running;

        /// Takes a new `agents/list` answer's login check for this agent.
        public void SetChecked(LoginState state) => Checked = state;

        /// The `agents/login` params; null while one runs.
        public LoginParams Start()
        {
            if (Busy) return null;
            Stage = LoginStage.Starting;
            LoginId = null;
            Url = Code = Error = null;
            AcceptsCode = false;
            Methods = new List<LoginMethod>();
            EnvVars = new List<string>();
            Output = new List<string>();
            return new LoginParams { Agent = Agent };
        }

        /// `agents/login` answered: the login's id (its progress names it).
        public void Started(LoginStarted started)
        {
            if (Stage != LoginStage.Starting || started?.LoginId == null) return;
            LoginId = started.LoginId;
            Stage = LoginStage.Running;
        }

        /// `agents/login` was refused (`login_running`, `login_unavailable`, …): the reason.
        public void Refused(string message)
        {
            Stage = LoginStage.Failed;
            Error = Words.OneLine(message, 300);
        }

        /// Takes an `agents/loginProgress`; one of another login is ignored.
        public bool Apply(LoginProgressParams progress)
        {
            if (progress == null || progress.Agent != Agent) return false;
            // The progress may be read before `agents/login`'s answer: the agent names it.
            if (LoginId == null && Stage == LoginStage.Starting) LoginId = progress.LoginId;
            if (progress.LoginId != LoginId) return false;
            Url = SafeUrl(progress.Url);
            Code = string.IsNullOrEmpty(progress.Code) ? null : Words.OneLine(progress.Code, 40);
            AcceptsCode = progress.AcceptsCode == true;
            Methods = progress.ChooseMethod == true && progress.Methods != null ? progress.Methods.Where(m => m?.Id != null).ToList() : new List<LoginMethod>();
            EnvVars = (progress.EnvVars ?? new List<string>()).Select(v => Words.OneLine(v, 60)).ToList();
            Output = (progress.Output ?? new List<string>()).Select(l => Words.OneLine(l, 300)).ToList();
            Error = string.IsNullOrEmpty(progress.Error) ? null : Words.OneLine(progress.Error, 300);
            switch (progress.Phase)
            {
                case Known.LoginPhase.Running: Stage = LoginStage.Running; break;
                case Known.LoginPhase.Succeeded:
                    Stage = LoginStage.Succeeded;
                    Checked = new LoginState { State = Known.LoginState.LoggedIn };
                    break;
                case Known.LoginPhase.Cancelled: Stage = LoginStage.Cancelled; break;
                case Known.LoginPhase.Failed: Stage = LoginStage.Failed; break;
                // A phase of a later version: still running as far as this one knows.
                default: Stage = LoginStage.Running; break;
            }
            return true;
        }

        /// The code the user pasted, typed into the login (`agents/loginInput`); null when the
        /// login reads none or the text is blank.
        public LoginInputParams SubmitCode(string code)
        {
            if (Stage != LoginStage.Running || !AcceptsCode || string.IsNullOrWhiteSpace(code)) return null;
            return new LoginInputParams { LoginId = LoginId, Text = code.Trim() };
        }

        /// One of the offered ways chosen (its id); null for an id not offered.
        public LoginInputParams ChooseMethod(string id)
        {
            if (Stage != LoginStage.Running || !Methods.Any(m => m.Id == id)) return null;
            return new LoginInputParams { LoginId = LoginId, Text = id };
        }

        public LoginIdParams Cancel() => Busy && LoginId != null ? new LoginIdParams { LoginId = LoginId } : null;

        /// What the login card says now.
        public string Describe(Language language)
        {
            switch (Stage)
            {
                case LoginStage.Starting:
                case LoginStage.Running:
                    if (Methods.Count > 0) return Strings.Get(Str.LoginChooseMethod, language);
                    if (Code != null) return Strings.Format(Str.LoginShowCode, language, Code);
                    if (AcceptsCode) return Strings.Get(Str.LoginEnterCode, language);
                    return Strings.Get(Str.LoginRunning, language);
                case LoginStage.Succeeded: return Strings.Get(Str.LoginSucceeded, language);
                case LoginStage.Cancelled: return Strings.Get(Str.LoginCancelled, language);
                case LoginStage.Failed:
                    if (EnvVars.Count > 0) return Strings.Format(Str.LoginNeedsEnv, language, string.Join(", ", EnvVars));
                    return Strings.Format(Str.LoginFailed, language, Error ?? "");
            }
            return CheckedWords(Checked, language);
        }

        /// The agent's login check in words (`agents/list`'s `login`); "" when not checked.
        public static string CheckedWords(LoginState state, Language language)
        {
            switch (state?.State)
            {
                case Known.LoginState.LoggedIn:
                    return string.IsNullOrEmpty(state.Method) ? Strings.Get(Str.LoginLoggedIn, language) : Strings.Format(Str.LoginLoggedInWith, language, Words.OneLine(state.Method, 40));
                case Known.LoginState.NotLoggedIn: return Strings.Get(Str.LoginNotLoggedIn, language);
                case null: return "";
                // `unknown`, and a state of a later version.
                default: return Strings.Format(Str.LoginUnknown, language, Words.OneLine(state.Reason ?? state.State, 120));
            }
        }

        /// Offer Log in: the check says not logged in (or cannot say), or a login here ended without success.
        public bool OffersLogin => !Busy && (Checked == null || Checked.State != Known.LoginState.LoggedIn);

        static string SafeUrl(string url)
        {
            Uri uri;
            if (string.IsNullOrEmpty(url) || !Uri.TryCreate(url, UriKind.Absolute, out uri)) return null;
            if (uri.Scheme != Uri.UriSchemeHttps && uri.Scheme != Uri.UriSchemeHttp) return null;
            return url.Any(c => !Words.Shown(c) || c == ' ') ? null : url;
        }
    }
}
