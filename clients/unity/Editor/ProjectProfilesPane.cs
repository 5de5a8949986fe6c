// The project's own profiles in the settings foldout, bound the same way (Core decides, this
// binds): the list with each one's state (ProjectProfiles.RowRich), Read… for the whole text, then
// Approve this text or Close, Revoke, and reading the folder again. The user's key and approvals
// are in `~/.config/codiva/unity/` (UserConfigFiles), never in the project.
using Codiva.Panel;
using Codiva.Unity;
using UnityEngine.UIElements;

namespace Codiva.Editor
{
    public sealed partial class CodivaWindow
    {
        ProjectProfiles projectProfiles;

        // Made on first use (the project's directory is the host's).
        ProjectProfiles ProjectProfilesModel() =>
            projectProfiles ?? (projectProfiles = new ProjectProfiles(CodivaHost.ProjectDir, new ProfileApprovals(new UserConfigFiles(UserConfigFiles.DefaultDir()))));

        VisualElement ProjectProfilesPane(Language lang)
        {
            var pane = new VisualElement { style = { flexShrink = 0 } };
            BindProjectProfiles(pane, lang);
            return pane;
        }

        void BindProjectProfiles(VisualElement pane, Language lang)
        {
            var model = ProjectProfilesModel();
            pane.Clear();
            pane.Add(new Label(model.HeadingRich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
            foreach (var profile in model.Listing.Profiles)
            {
                var row = Row();
                var file = profile.File;
                row.Add(new Label(ProjectProfiles.RowRich(profile, lang)) { style = { whiteSpace = WhiteSpace.Normal } });
                if (profile.CanOpen) row.Add(new Button(() => { model.Open(file); BindProjectProfiles(pane, lang); }) { text = Strings.Get(Str.ProjectProfileRead, lang) });
                if (profile.CanRevoke) row.Add(new Button(() => { model.Revoke(file); BindProjectProfiles(pane, lang); }) { text = Strings.Get(Str.ProjectProfileRevoke, lang) });
                pane.Add(row);
            }
            pane.Add(new Label(model.FootRich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
            pane.Add(new Button(() => { model.Refresh(); BindProjectProfiles(pane, lang); }) { text = Strings.Get(Str.ProjectProfilesReload, lang) });
            if (model.Reading == null) return;
            // The whole text, as the agent would be told it; approving approves this text.
            pane.Add(new Label(model.ReadingRich(lang)) { style = { whiteSpace = WhiteSpace.Normal } });
            var buttons = Row();
            buttons.Add(new Button(() => { model.Approve(); BindProjectProfiles(pane, lang); }) { text = Strings.Get(Str.ProjectProfileApprove, lang) });
            buttons.Add(new Button(() => { model.Close(); BindProjectProfiles(pane, lang); }) { text = Strings.Get(Str.ProjectProfileClose, lang) });
            pane.Add(buttons);
        }
    }
}
