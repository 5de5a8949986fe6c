// The markers and pins in the Scene view: Ops' ledger draws as lines and captions
// (`Markers.Lines`, `Marker.Caption`); this only calls Handles. A change of the ledger (on the
// Ops server's threads) repaints the Scene views on the Editor's thread.
using Codiva.Ops;
using UnityEditor;
using UnityEngine;

namespace Codiva.Editor
{
    public static class MarkerOverlay
    {
        static MarkerLedger ledger;

        public static void Attach(MarkerLedger markers)
        {
            Detach();
            ledger = markers;
            ledger.Changed += Repaint;
            SceneView.duringSceneGui += Draw;
        }

        public static void Detach()
        {
            if (ledger == null) return;
            ledger.Changed -= Repaint;
            SceneView.duringSceneGui -= Draw;
            ledger = null;
        }

        static void Repaint() => CodivaHost.Dispatcher?.Post(SceneView.RepaintAll);

        static Vector3 V(Point3 p) => new Vector3((float)p.X, (float)p.Y, (float)p.Z);

        static void Draw(SceneView view)
        {
            if (ledger == null) return;
            foreach (var marker in ledger.All())
            {
                Handles.color = marker.Kind == MarkerKind.Pin ? Color.cyan : Color.yellow;
                foreach (var line in Markers.Lines(marker)) Handles.DrawLine(V(line.From), V(line.To));
                Handles.Label(V(marker.At), marker.Caption);
            }
        }
    }
}
