// Markers and pins (Codiva.Ops.MarkerLedger and the marker_* tools): placed by the agent through
// its tools (checked: kinds, places, labels one line), the user's pins listed with them, cleared
// by id or all, kept in a file across a domain reload (a new ledger over it) with their numbers,
// an unreadable file set aside.
using System.Collections.Generic;
using System.IO;
using System.Linq;
using Codiva.Ops;
using NUnit.Framework;
using static Codiva.Tests.Script;

namespace Codiva.Tests
{
    [TestFixture]
    public class MarkerTests
    {
        TempDir dir;
        string file;
        MarkerLedger ledger;
        ToolRegistry registry;
        int changes;

        [SetUp]
        public void Start()
        {
            dir = new TempDir("codiva-markers-");
            file = Path.Combine(dir.Path, "Library", "Codiva", "markers.json");
            ledger = new MarkerLedger(file);
            ledger.Changed += () => changes++;
            registry = new ToolRegistry();
            Markers.Register(registry, ledger);
            registry.Enable("markers");
            changes = 0;
        }

        [TearDown]
        public void End() => dir.Dispose();

        string Call(string tool, Dictionary<string, object> args)
        {
            var result = registry.Find(tool).Call(args);
            Assert.IsFalse(result.IsError);
            return (string)((Dictionary<string, object>)result.Content.Single())["text"];
        }

        string Refused(string tool, Dictionary<string, object> args) => Assert.Throws<ToolError>(() => registry.Find(tool).Call(args)).Message;

        [Test]
        public void The_agent_places_points_arrows_and_boxes_and_lists_them_with_the_users_pins()
        {
            Assert.AreEqual("no markers", Call("marker_list", Obj()));
            Assert.AreEqual("placed M1 point at (1, 2, 3): the door", Call("marker_add", Obj("kind", "point", "at", List(1L, 2L, 3L), "label", "the door")));
            Assert.AreEqual("placed M2 arrow at (0, 0, 0) to (0.5, 1.25, -2): walk here",
                Call("marker_add", Obj("kind", "arrow", "at", List(0L, 0L, 0L), "to", List(0.5, 1.25, -2L), "label", "walk\nhere")));
            Assert.AreEqual("placed M3 box at (0, 1, 0) size (2, 2, 2)", Call("marker_add", Obj("kind", "box", "at", List(0L, 1L, 0L), "size", List(2L, 2L, 2L))));
            var pin = ledger.Pin(new Point3(4, 0, 4));
            Assert.AreEqual("P1", pin.Id);
            Assert.AreEqual("M1 point at (1, 2, 3): the door\nM2 arrow at (0, 0, 0) to (0.5, 1.25, -2): walk here\nM3 box at (0, 1, 0) size (2, 2, 2)\nP1 pin at (4, 0, 4)",
                Call("marker_list", Obj()));
            Assert.AreEqual(new[] { "M1 the door", "M2 walk here", "M3", "P1" }, ledger.All().Select(m => m.Caption).ToArray());
            Assert.AreEqual(4, changes);
            // Overlays: the tools change nothing of the project (auto-approve's first level lets them through).
            Assert.IsTrue(registry.Listed().All(t => t is IChangesNothing && !t.Destructive && t.Affinity == ThreadAffinity.Any));
        }

        [Test]
        public void A_marker_that_cannot_be_placed_is_refused_with_what_to_change()
        {
            StringAssert.Contains("point, arrow or box", Refused("marker_add", Obj("kind", "pin", "at", List(0L, 0L, 0L))));
            StringAssert.Contains("point, arrow or box", Refused("marker_add", Obj("kind", "POINT", "at", List(0L, 0L, 0L))));
            StringAssert.Contains("`at` is [x, y, z]", Refused("marker_add", Obj("kind", "point", "at", List(0L, 0L))));
            StringAssert.Contains("`at` is [x, y, z]", Refused("marker_add", Obj("kind", "point", "at", List("0", 0L, 0L))));
            StringAssert.Contains("`to` is [x, y, z]", Refused("marker_add", Obj("kind", "arrow", "at", List(0L, 0L, 0L))));
            StringAssert.Contains("`size` is [x, y, z]", Refused("marker_add", Obj("kind", "box", "at", List(0L, 0L, 0L))));
            StringAssert.Contains("not negative", Refused("marker_add", Obj("kind", "box", "at", List(0L, 0L, 0L), "size", List(1L, -1L, 1L))));
            StringAssert.Contains("within", Refused("marker_add", Obj("kind", "point", "at", List(0L, 2e6, 0L))));
            StringAssert.Contains("list of marker ids", Refused("marker_clear", Obj("ids", "M1")));
            Assert.AreEqual(0, ledger.All().Count);
            // A long label is one line, cut.
            Call("marker_add", Obj("kind", "point", "at", List(0L, 0L, 0L), "label", new string('x', 500)));
            Assert.LessOrEqual(ledger.All().Single().Label.Length, MarkerLedger.MaxLabel);
            for (var i = 1; i < MarkerLedger.MaxMarkers; i++) ledger.Pin(new Point3(i, 0, 0));
            StringAssert.Contains("clear some first", Refused("marker_add", Obj("kind", "point", "at", List(0L, 0L, 0L))));
        }

        [Test]
        public void Markers_are_cleared_by_id_or_all_and_outlive_a_domain_reload()
        {
            Call("marker_add", Obj("kind", "point", "at", List(1L, 0L, 0L)));
            Call("marker_add", Obj("kind", "point", "at", List(2L, 0L, 0L)));
            ledger.Pin(new Point3(3, 0, 0), "mine");
            Assert.AreEqual("removed 1 marker", Call("marker_clear", Obj("ids", List("M1", "M9"))));
            var after = new MarkerLedger(file);
            Assert.IsNull(after.Problem);
            Assert.AreEqual(new[] { "M2 point at (2, 0, 0)", "P1 pin at (3, 0, 0): mine" }, after.All().Select(m => m.Line()).ToArray());
            // Numbers go on (M1 is not given again while markers remain).
            Assert.AreEqual("M3", after.Add(MarkerKind.Point, "", new Point3(0, 0, 0)).Id);
            Assert.AreEqual(3, after.Clear());
            Assert.AreEqual("M1", after.Add(MarkerKind.Point, "", new Point3(0, 0, 0)).Id, "numbering starts again once none is left");
            Assert.AreEqual(1, new MarkerLedger(file).All().Count);

            File.WriteAllText(file, "{\"version\":1,\"markers\":[{\"id\":\"M1\",\"kind\":\"Point\",\"at\":[1,2]}]}");
            var broken = new MarkerLedger(file);
            Assert.AreEqual(0, broken.All().Count);
            StringAssert.Contains("could not be read", broken.Problem);
            Assert.IsTrue(File.Exists(file + ".unreadable"));
        }
    
        static string P(Point3 p) => p.ToString();

        [Test]
        public void The_overlay_draws_each_kind_as_its_lines()
        {
            var box = ledger.Add(MarkerKind.Box, "", new Point3(0, 1, 0), size: new Point3(2, 4, 6));
            var edges = Markers.Lines(box);
            Assert.AreEqual(12, edges.Count);
            // Every edge is one of the box's, along one axis, between two of its eight corners.
            foreach (var e in edges)
            {
                Assert.IsTrue(new[] { e.From, e.To }.All(c => System.Math.Abs(c.X) == 1 && (c.Y == -1 || c.Y == 3) && System.Math.Abs(c.Z) == 3), P(e.From) + P(e.To));
                Assert.AreEqual(2, new[] { e.From.X == e.To.X, e.From.Y == e.To.Y, e.From.Z == e.To.Z }.Count(same => same));
            }
            Assert.AreEqual(12, edges.Select(e => P(e.From) + P(e.To)).Distinct().Count());

            var arrow = Markers.Lines(ledger.Add(MarkerKind.Arrow, "", new Point3(0, 0, 0), to: new Point3(4, 0, 0)));
            Assert.AreEqual(3, arrow.Count);
            Assert.AreEqual("(0, 0, 0)(4, 0, 0)", P(arrow[0].From) + P(arrow[0].To));
            // The head: two lines back from the tip, half a unit long along the shaft, either side.
            Assert.AreEqual(new[] { "(4, 0, 0)(3.5, 0, 0.25)", "(4, 0, 0)(3.5, 0, -0.25)" }, arrow.Skip(1).Select(e => P(e.From) + P(e.To)).OrderBy(x => x.Contains("-") ? 1 : 0).ToArray());
            // Straight up: still a head.
            Assert.AreEqual(3, Markers.Lines(ledger.Add(MarkerKind.Arrow, "", new Point3(0, 0, 0), to: new Point3(0, 2, 0))).Count);
            Assert.AreEqual(1, Markers.Lines(ledger.Add(MarkerKind.Arrow, "", new Point3(1, 1, 1), to: new Point3(1, 1, 1))).Count);

            var pin = Markers.Lines(ledger.Pin(new Point3(5, 0, 5)));
            Assert.AreEqual("(5, 0, 5)(5, 1, 5)", P(pin[0].From) + P(pin[0].To));
            Assert.AreEqual(4, pin.Count);
            Assert.AreEqual(3, Markers.Lines(ledger.Add(MarkerKind.Point, "", new Point3(0, 0, 0))).Count);
        }
    
        [Test]
        public void The_users_strokes_are_kept_simplified_listed_drawn_and_reloaded()
        {
            // A drag of 1,000 mouse moves along a curve on the ground, with repeats and a point
            // beyond the limits.
            var drag = new List<Point3>();
            for (var i = 0; i < 1000; i++) { var t = i / 100.0; drag.Add(new Point3(t, 0, System.Math.Sin(t))); drag.Add(new Point3(t, 0, System.Math.Sin(t))); }
            drag.Insert(500, new Point3(double.NaN, 0, 0));
            drag.Insert(700, new Point3(0, 0, 5e6));
            var stroke = ledger.Stroke(drag);
            Assert.AreEqual("S1", stroke.Id);
            Assert.AreEqual(MarkerLedger.MaxStrokePoints, stroke.Points.Count);
            Assert.AreEqual("(0, 0, 0)", stroke.Points[0].ToString());
            Assert.AreEqual(drag[drag.Count - 1].ToString(), stroke.Points[stroke.Points.Count - 1].ToString(), "its end is kept");
            Assert.IsTrue(stroke.Points.Zip(stroke.Points.Skip(1), (a, b) => b.X > a.X).All(x => x), "in the order drawn");
            Assert.AreEqual(MarkerLedger.MaxStrokePoints - 1, Markers.Lines(stroke).Count);
            // A click, or a drag within the spacing, is no stroke.
            Assert.IsNull(ledger.Stroke(new[] { new Point3(1, 0, 1), new Point3(1.01, 0, 1) }));
            var small = ledger.Stroke(new[] { new Point3(0, 0, 0), new Point3(1, 0, 0), new Point3(1, 0, 1) });
            Assert.AreEqual("S2 stroke of 3 points: (0, 0, 0) (1, 0, 0) (1, 0, 1)", small.Line());
            StringAssert.Contains("S2 stroke of 3 points", Call("marker_list", Obj()));
            StringAssert.Contains("point, arrow or box", Refused("marker_add", Obj("kind", "stroke", "at", List(0L, 0L, 0L))));
            var after = new MarkerLedger(file);
            Assert.AreEqual(new[] { MarkerLedger.MaxStrokePoints, 3 }, after.All().Select(m => m.Points.Count).ToArray());
            Assert.AreEqual("S3", after.Stroke(new[] { new Point3(0, 0, 0), new Point3(0, 0, 1) }).Id);
            Assert.AreEqual(1, after.Clear(new[] { "S1" }));
            for (var i = 0; i < MarkerLedger.MaxStrokes; i++) after.Stroke(new[] { new Point3(i, 0, 0), new Point3(i, 0, 1) });
            Assert.AreEqual(MarkerLedger.MaxStrokes, after.All().Count(m => m.Kind == MarkerKind.Stroke));
        }

        [Test]
        public void A_drag_meets_the_ground_plane_where_the_views_ray_does()
        {
            Assert.AreEqual("(2, 0, 3)", Markers.OnPlane(new Point3(2, 10, 3), new Point3(0, -1, 0), 0).ToString());
            Assert.AreEqual("(5, 1, 0)", Markers.OnPlane(new Point3(0, 6, 0), new Point3(1, -1, 0), 1).ToString());
            Assert.IsNull(Markers.OnPlane(new Point3(0, 6, 0), new Point3(1, 0, 0), 0), "along the plane");
            Assert.IsNull(Markers.OnPlane(new Point3(0, 6, 0), new Point3(0, 1, 0), 0), "looking away");
            Assert.IsNull(Markers.OnPlane(new Point3(0, 6, 0), new Point3(1, -1e-8, 0), 0), "too far");
        }
    }
}
