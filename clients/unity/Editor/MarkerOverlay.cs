// The markers, pins and strokes in the Scene view: Ops' ledger draws as lines and captions
// (`Markers.Lines`, `Marker.Caption`); this only calls Handles. While *Sketch* is on, a left
// drag in a Scene view is a stroke on the horizontal plane through the view's pivot (where the
// mouse's ray meets it: `Markers.OnPlane`; the ledger keeps it simplified). A change of the
// ledger (on the Ops server's threads) repaints the Scene views on the Editor's thread.
using System.Collections.Generic;
using Codiva.Ops;
using UnityEditor;
using UnityEngine;

namespace Codiva.Editor
{
    public static class MarkerOverlay
    {
        static MarkerLedger ledger;
        static readonly List<Point3> drawing = new List<Point3>();

        /// The window's *Sketch* toggle.
        public static bool Sketching { get; set; }

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

        static Point3 P(Vector3 v) => new Point3(v.x, v.y, v.z);

        static void Draw(SceneView view)
        {
            if (ledger == null) return;
            if (Sketching) Sketch(view);
            foreach (var marker in ledger.All())
            {
                Handles.color = marker.Kind == MarkerKind.Pin ? Color.cyan : Color.yellow;
                foreach (var line in Markers.Lines(marker)) Handles.DrawLine(V(line.From), V(line.To));
                Handles.Label(V(marker.At), marker.Caption);
            }
        }

        static void Sketch(SceneView view)
        {
            // The view does not select objects while the user sketches.
            HandleUtility.AddDefaultControl(GUIUtility.GetControlID(FocusType.Passive));
            var e = Event.current;
            if (e.button == 0 && (e.type == EventType.MouseDown || e.type == EventType.MouseDrag))
            {
                if (e.type == EventType.MouseDown) drawing.Clear();
                var ray = HandleUtility.GUIPointToWorldRay(e.mousePosition);
                var hit = Markers.OnPlane(P(ray.origin), P(ray.direction), view.pivot.y);
                if (hit.HasValue) drawing.Add(hit.Value);
                e.Use();
            }
            else if (e.button == 0 && e.type == EventType.MouseUp)
            {
                ledger.Stroke(drawing);
                drawing.Clear();
                e.Use();
            }
            Handles.color = Color.cyan;
            for (var i = 1; i < drawing.Count; i++) Handles.DrawLine(V(drawing[i - 1]), V(drawing[i]));
        }
    }
}
