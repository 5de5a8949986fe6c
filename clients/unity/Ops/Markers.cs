// Markers and pins in the Scene view: the agent places numbered markers (a point, an arrow, a
// box, each with a short label: `marker_add`), lists them with the pins the user dropped
// (`marker_list`) and clears them (`marker_clear`); the user drops pins (P1, P2, …) from the
// panel and sketches strokes (S1, S2, …) on the ground plane of the Scene view. They are overlays only — nothing of the scene or the project changes, and Undo has
// nothing to do with them. The ledger is a file written atomically at each change (the Editor's:
// `Library/Codiva/markers.json`), so markers outlive a domain reload; the Editor draws the lines
// `Markers.Lines` gives and each caption (SceneView overlay: the only part that is Unity calls),
// and turns the user's drags into strokes (where a drag meets the plane: `Markers.OnPlane`).
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using Codiva.Json;
using Codiva.Panel;
using Codiva.Unity;

namespace Codiva.Ops
{
    public enum MarkerKind { Point, Arrow, Box, Pin, Stroke }

    /// A place in the scene (world space).
    public struct Point3
    {
        public double X, Y, Z;
        public Point3(double x, double y, double z) { X = x; Y = y; Z = z; }
        public override string ToString() => "(" + N(X) + ", " + N(Y) + ", " + N(Z) + ")";
        static string N(double v) => v.ToString("0.###", CultureInfo.InvariantCulture);
    }

    public sealed class Marker
    {
        /// `M1`, `M2`… (the agent's), `P1`, `P2`… (the user's pins); never reused while the
        /// ledger holds markers.
        public string Id;
        public MarkerKind Kind;
        /// One line (at most `MaxLabel` characters).
        public string Label;
        public Point3 At;
        /// An arrow's head; a box's size.
        public Point3? To;
        public Point3? Size;
        /// A stroke's points, in the order drawn.
        public List<Point3> Points;

        /// What the overlay writes next to it: `M1 door`.
        public string Caption => Label.Length == 0 ? Id : Id + " " + Label;

        /// One line of `marker_list`.
        public string Line()
        {
            var kind = Kind.ToString().ToLowerInvariant();
            var line = Id + " " + kind + " at " + At;
            if (To.HasValue) line += " to " + To.Value;
            if (Size.HasValue) line += " size " + Size.Value;
            if (Points != null) line = Id + " stroke of " + Points.Count + " points: " + string.Join(" ", Points.Select(p => p.ToString()));
            return Label.Length == 0 ? line : line + ": " + Label;
        }
    }

    public sealed class MarkerLedger
    {
        public const int MaxMarkers = 100;
        public const int MaxLabel = 80;
        /// Coordinates farther than this from the origin are refused (a typo, not a place).
        public const double MaxCoordinate = 1e6;
        /// A stroke keeps at most this many points (evenly chosen, its ends kept), none closer
        /// than `StrokeSpacing` to the one before.
        public const int MaxStrokePoints = 64;
        public const double StrokeSpacing = 0.05;
        public const int MaxStrokes = 20;

        readonly string file;
        readonly object gate = new object();
        readonly List<Marker> markers = new List<Marker>();
        int nextAgent = 1, nextPin = 1, nextStroke = 1;

        /// The markers changed (on the thread that changed them: the Editor repaints its views).
        public event Action Changed;

        /// Why the file could not be read (it was set aside); null.
        public string Problem { get; private set; }

        public MarkerLedger(string file)
        {
            this.file = file;
            Load();
        }

        public List<Marker> All() { lock (gate) return new List<Marker>(markers); }

        /// The agent's marker; a ToolError (for the agent) when it cannot be placed.
        public Marker Add(MarkerKind kind, string label, Point3 at, Point3? to = null, Point3? size = null)
        {
            Check(at);
            if (kind == MarkerKind.Arrow) { if (!to.HasValue) throw new ToolError("an arrow needs `to`"); Check(to.Value); }
            if (kind == MarkerKind.Box)
            {
                if (!size.HasValue) throw new ToolError("a box needs `size`");
                Check(size.Value);
                if (size.Value.X < 0 || size.Value.Y < 0 || size.Value.Z < 0) throw new ToolError("a box's size is not negative");
            }
            if (kind == MarkerKind.Pin || kind == MarkerKind.Stroke) throw new ToolError("pins and strokes are the user's");
            return Put(kind, label, at, kind == MarkerKind.Arrow ? to : null, kind == MarkerKind.Box ? size : null);
        }

        /// The user's pin.
        public Marker Pin(Point3 at, string label = "")
        {
            Check(at);
            return Put(MarkerKind.Pin, label, at, null, null);
        }

        /// The user's stroke through `points` (a drag on the Scene view); null when it has fewer
        /// than two points apart or when there are `MaxStrokes` already (the oldest stays).
        public Marker Stroke(IEnumerable<Point3> points)
        {
            var kept = Simplify(points);
            if (kept.Count < 2) return null;
            lock (gate)
                if (markers.Count(m => m.Kind == MarkerKind.Stroke) >= MaxStrokes) return null;
            return Put(MarkerKind.Stroke, "", kept[0], null, null, kept);
        }

        /// The points a stroke keeps of `points`: the finite ones within the limits, none closer
        /// than StrokeSpacing to the one kept before, at most MaxStrokePoints evenly chosen with
        /// both ends.
        public static List<Point3> Simplify(IEnumerable<Point3> points)
        {
            var spaced = new List<Point3>();
            Point3? last = null;
            foreach (var p in points ?? new Point3[0])
            {
                if (!Fits(p)) continue;
                last = p;
                if (spaced.Count > 0 && Distance(spaced[spaced.Count - 1], p) < StrokeSpacing) continue;
                spaced.Add(p);
            }
            // The end is where the user let go: it stays (in place of a kept point too close to it).
            if (last.HasValue && spaced.Count > 1 && Distance(spaced[spaced.Count - 1], last.Value) > 0)
            {
                if (Distance(spaced[spaced.Count - 1], last.Value) < StrokeSpacing) spaced[spaced.Count - 1] = last.Value;
                else spaced.Add(last.Value);
            }
            if (spaced.Count <= MaxStrokePoints) return spaced;
            var chosen = new List<Point3>(MaxStrokePoints);
            for (var i = 0; i < MaxStrokePoints; i++)
                chosen.Add(spaced[(int)Math.Round((double)i * (spaced.Count - 1) / (MaxStrokePoints - 1))]);
            return chosen;
        }

        static double Distance(Point3 a, Point3 b) => Math.Sqrt((a.X - b.X) * (a.X - b.X) + (a.Y - b.Y) * (a.Y - b.Y) + (a.Z - b.Z) * (a.Z - b.Z));

        static bool Fits(Point3 p) =>
            new[] { p.X, p.Y, p.Z }.All(v => !double.IsNaN(v) && !double.IsInfinity(v) && Math.Abs(v) <= MaxCoordinate);

        Marker Put(MarkerKind kind, string label, Point3 at, Point3? to, Point3? size, List<Point3> points = null)
        {
            Marker marker;
            lock (gate)
            {
                if (markers.Count >= MaxMarkers) throw new ToolError("there are " + MaxMarkers + " markers already: clear some first");
                marker = new Marker
                {
                    Id = kind == MarkerKind.Pin ? "P" + nextPin++ : kind == MarkerKind.Stroke ? "S" + nextStroke++ : "M" + nextAgent++,
                    Points = points,
                    Kind = kind,
                    Label = Words.OneLine(label ?? "", MaxLabel),
                    At = at,
                    To = to,
                    Size = size,
                };
                markers.Add(marker);
                Save();
            }
            Changed?.Invoke();
            return marker;
        }

        /// Removes the markers `ids` (all when null); returns how many went. Numbering starts
        /// again once none is left.
        public int Clear(ICollection<string> ids = null)
        {
            int removed;
            lock (gate)
            {
                removed = markers.RemoveAll(m => ids == null || ids.Contains(m.Id));
                if (markers.Count == 0) nextAgent = nextPin = nextStroke = 1;
                if (removed > 0) Save();
            }
            if (removed > 0) Changed?.Invoke();
            return removed;
        }

        static void Check(Point3 p)
        {
            foreach (var v in new[] { p.X, p.Y, p.Z })
                if (double.IsNaN(v) || double.IsInfinity(v) || Math.Abs(v) > MaxCoordinate)
                    throw new ToolError("coordinates are finite numbers within ±" + MaxCoordinate.ToString(CultureInfo.InvariantCulture));
        }

        static List<object> Json(Point3 p) => new List<object> { p.X, p.Y, p.Z };

        void Save()
        {
            var items = new List<object>();
            foreach (var m in markers)
            {
                var item = new Dictionary<string, object> { { "id", m.Id }, { "kind", m.Kind.ToString() }, { "label", m.Label }, { "at", Json(m.At) } };
                if (m.To.HasValue) item["to"] = Json(m.To.Value);
                if (m.Size.HasValue) item["size"] = Json(m.Size.Value);
                if (m.Points != null) item["points"] = m.Points.Select(p => (object)Json(p)).ToList();
                items.Add(item);
            }
            AtomicFile.Write(file, JsonText.Write(new Dictionary<string, object>
            {
                { "version", 1L }, { "next_agent", (long)nextAgent }, { "next_pin", (long)nextPin }, { "next_stroke", (long)nextStroke }, { "markers", items },
            }));
        }

        static Point3? ReadPoint(object json)
        {
            var list = json as List<object>;
            if (list == null) return null;
            if (list.Count != 3) throw new FormatException("a point is three numbers");
            var v = list.Select(n => n is long l ? l : n is double d ? d : throw new FormatException("a point is three numbers")).ToArray();
            return new Point3(v[0], v[1], v[2]);
        }

        void Load()
        {
            try
            {
                var text = AtomicFile.Read(file);
                if (text == null) return;
                var root = JsonText.Parse(text);
                if (JsonRead.Long(root, "version") != 1) throw new FormatException("not version 1");
                var loaded = new List<Marker>();
                foreach (var item in JsonRead.Arr(root, "markers") ?? throw new FormatException("no markers"))
                {
                    MarkerKind kind;
                    if (!Enum.TryParse(JsonRead.Str(item, "kind") ?? "", out kind)) throw new FormatException("a marker of no known kind");
                    var at = ReadPoint(JsonRead.Get(item, "at")) ?? throw new FormatException("a marker without a place");
                    loaded.Add(new Marker
                    {
                        Id = JsonRead.Str(item, "id") ?? throw new FormatException("a marker without an id"),
                        Kind = kind,
                        Label = Words.OneLine(JsonRead.Str(item, "label") ?? "", MaxLabel),
                        At = at,
                        To = ReadPoint(JsonRead.Get(item, "to")),
                        Size = ReadPoint(JsonRead.Get(item, "size")),
                        Points = JsonRead.Get(item, "points") is List<object> points
                            ? points.Take(MaxStrokePoints).Select(p => ReadPoint(p) ?? throw new FormatException("a stroke's point")).ToList()
                            : null,
                    });
                }
                markers.AddRange(loaded.Take(MaxMarkers));
                nextAgent = (int)Math.Max(1, Math.Min(int.MaxValue, JsonRead.Long(root, "next_agent") ?? 1));
                nextPin = (int)Math.Max(1, Math.Min(int.MaxValue, JsonRead.Long(root, "next_pin") ?? 1));
                nextStroke = (int)Math.Max(1, Math.Min(int.MaxValue, JsonRead.Long(root, "next_stroke") ?? 1));
            }
            catch (Exception e) when (e is JsonException || e is FormatException)
            {
                markers.Clear();
                Problem = file + " could not be read (" + e.Message + "); it was set aside";
                AtomicFile.SetAside(file);
            }
        }
    }

    static class MarkerArgs
    {
        internal static Point3 Point(Dictionary<string, object> args, string name, bool required = true)
        {
            var value = JsonRead.Get(args, name);
            var list = value as List<object>;
            if (list == null || list.Count != 3 || list.Any(n => !(n is long) && !(n is double)))
            {
                if (!required && value == null) return default(Point3);
                throw new ToolError("`" + name + "` is [x, y, z] (world space)");
            }
            var v = list.Select(n => n is long l ? (double)l : (double)n).ToArray();
            return new Point3(v[0], v[1], v[2]);
        }

        internal static Dictionary<string, object> PointSchema(string description) => new Dictionary<string, object>
        {
            { "type", "array" }, { "items", new Dictionary<string, object> { { "type", "number" } } }, { "minItems", 3L }, { "maxItems", 3L }, { "description", description },
        };
    }

    /// `marker_add`: an overlay in the Scene view (nothing of the project changes).
    public sealed class MarkerAddTool : ITool, IChangesNothing
    {
        readonly MarkerLedger ledger;
        public MarkerAddTool(MarkerLedger ledger) { this.ledger = ledger; }
        public string Name => "marker_add";
        public string Module => "markers";
        public string Description => "Shows the user a numbered marker in the Scene view (point, arrow or box, with a short label); an overlay only, nothing in the scene changes.";
        public Dictionary<string, object> InputSchema => new Dictionary<string, object>
        {
            { "type", "object" },
            { "properties", new Dictionary<string, object>
                {
                    { "kind", new Dictionary<string, object> { { "type", "string" }, { "enum", new List<object> { "point", "arrow", "box" } } } },
                    { "label", new Dictionary<string, object> { { "type", "string" }, { "description", "a few words, one line" } } },
                    { "at", MarkerArgs.PointSchema("the point, the arrow's tail or the box's centre") },
                    { "to", MarkerArgs.PointSchema("an arrow's head") },
                    { "size", MarkerArgs.PointSchema("a box's size") },
                }
            },
            { "required", new List<object> { "kind", "at" } },
        };
        public ThreadAffinity Affinity => ThreadAffinity.Any;
        public bool Destructive => false;

        public ToolResult Call(Dictionary<string, object> arguments)
        {
            MarkerKind kind;
            var word = JsonRead.Str(arguments, "kind") ?? "";
            if (word.ToLowerInvariant() != word || !Enum.TryParse(word, true, out kind) || kind == MarkerKind.Pin || kind == MarkerKind.Stroke)
                throw new ToolError("`kind` is point, arrow or box");
            var to = kind == MarkerKind.Arrow ? MarkerArgs.Point(arguments, "to") : (Point3?)null;
            var size = kind == MarkerKind.Box ? MarkerArgs.Point(arguments, "size") : (Point3?)null;
            var marker = ledger.Add(kind, JsonRead.Str(arguments, "label"), MarkerArgs.Point(arguments, "at"), to, size);
            return ToolResult.Text("placed " + marker.Line());
        }
    }

    /// `marker_list`: the agent's markers and the user's pins.
    public sealed class MarkerListTool : ITool, IChangesNothing
    {
        readonly MarkerLedger ledger;
        public MarkerListTool(MarkerLedger ledger) { this.ledger = ledger; }
        public string Name => "marker_list";
        public string Module => "markers";
        public string Description => "Lists the markers in the Scene view: yours (M1…), the pins the user dropped (P1…) and the strokes the user sketched (S1…: their points), with their places.";
        public Dictionary<string, object> InputSchema => Args.Schema();
        public ThreadAffinity Affinity => ThreadAffinity.Any;
        public bool Destructive => false;

        public ToolResult Call(Dictionary<string, object> arguments)
        {
            var all = ledger.All();
            return ToolResult.Text(all.Count == 0 ? "no markers" : string.Join("\n", all.Select(m => m.Line())));
        }
    }

    /// `marker_clear`: removes markers (the given ids, or all).
    public sealed class MarkerClearTool : ITool, IChangesNothing
    {
        readonly MarkerLedger ledger;
        public MarkerClearTool(MarkerLedger ledger) { this.ledger = ledger; }
        public string Name => "marker_clear";
        public string Module => "markers";
        public string Description => "Removes markers from the Scene view: the ids given, or every one (an overlay only).";
        public Dictionary<string, object> InputSchema => new Dictionary<string, object>
        {
            { "type", "object" },
            { "properties", new Dictionary<string, object> { { "ids", new Dictionary<string, object> { { "type", "array" }, { "items", new Dictionary<string, object> { { "type", "string" } } } } } } },
        };
        public ThreadAffinity Affinity => ThreadAffinity.Any;
        public bool Destructive => false;

        public ToolResult Call(Dictionary<string, object> arguments)
        {
            var ids = JsonRead.Get(arguments, "ids");
            if (ids != null && !(ids is List<object> list && list.All(i => i is string))) throw new ToolError("`ids` is a list of marker ids (M1, P2, …)");
            var removed = ledger.Clear(ids == null ? null : ((List<object>)ids).Cast<string>().ToList());
            return ToolResult.Text("removed " + removed + " marker" + (removed == 1 ? "" : "s"));
        }
    }

    /// A line of the overlay, in world space.
    public struct Segment
    {
        public Point3 From, To;
        public Segment(Point3 from, Point3 to) { From = from; To = to; }
    }

    public static class Markers
    {
        /// The lines the Scene view draws for `marker` (its caption goes at `At`): a point is a
        /// small three-axis cross, an arrow its shaft and a two-line head at `To`, a box its twelve
        /// edges, a pin a post one unit up from its place with a cross at its top.
        public static List<Segment> Lines(Marker marker)
        {
            var lines = new List<Segment>();
            var at = marker.At;
            switch (marker.Kind)
            {
                case MarkerKind.Arrow:
                    var to = marker.To ?? at;
                    lines.Add(new Segment(at, to));
                    var d = Sub(to, at);
                    var length = Length(d);
                    if (length == 0) break;
                    d = Scale(d, 1 / length);
                    var up = Math.Abs(d.Y) > 0.99 ? new Point3(1, 0, 0) : new Point3(0, 1, 0);
                    var side = Cross(d, up);
                    side = Scale(side, 1 / Length(side));
                    var head = Math.Min(0.25 * length, 0.5);
                    var back = Sub(to, Scale(d, head));
                    lines.Add(new Segment(to, Add(back, Scale(side, head / 2))));
                    lines.Add(new Segment(to, Sub(back, Scale(side, head / 2))));
                    break;
                case MarkerKind.Box:
                    var size = marker.Size ?? new Point3(0, 0, 0);
                    var h = Scale(size, 0.5);
                    Func<int, int, int, Point3> C = (x, y, z) => new Point3(at.X + x * h.X, at.Y + y * h.Y, at.Z + z * h.Z);
                    foreach (var a in new[] { -1, 1 })
                        foreach (var b in new[] { -1, 1 })
                        {
                            lines.Add(new Segment(C(-1, a, b), C(1, a, b)));
                            lines.Add(new Segment(C(a, -1, b), C(a, 1, b)));
                            lines.Add(new Segment(C(a, b, -1), C(a, b, 1)));
                        }
                    break;
                case MarkerKind.Stroke:
                    var points = marker.Points ?? new List<Point3>();
                    for (var i = 1; i < points.Count; i++) lines.Add(new Segment(points[i - 1], points[i]));
                    break;
                case MarkerKind.Pin:
                    var top = new Point3(at.X, at.Y + 1, at.Z);
                    lines.Add(new Segment(at, top));
                    lines.AddRange(Cross3(top, 0.15));
                    break;
                default:
                    lines.AddRange(Cross3(at, 0.25));
                    break;
            }
            return lines;
        }

        /// Where the ray from `origin` along `direction` (the Scene view's, through the mouse)
        /// meets the horizontal plane at height `planeY`; null when it runs along it, points away
        /// from it or meets it farther than the coordinates' limit.
        public static Point3? OnPlane(Point3 origin, Point3 direction, double planeY)
        {
            if (Math.Abs(direction.Y) < 1e-9) return null;
            var t = (planeY - origin.Y) / direction.Y;
            if (t < 0 || double.IsNaN(t) || double.IsInfinity(t)) return null;
            var hit = new Point3(origin.X + t * direction.X, planeY, origin.Z + t * direction.Z);
            return Math.Abs(hit.X) > MarkerLedger.MaxCoordinate || Math.Abs(hit.Z) > MarkerLedger.MaxCoordinate ? (Point3?)null : hit;
        }

        static IEnumerable<Segment> Cross3(Point3 c, double r)
        {
            yield return new Segment(new Point3(c.X - r, c.Y, c.Z), new Point3(c.X + r, c.Y, c.Z));
            yield return new Segment(new Point3(c.X, c.Y - r, c.Z), new Point3(c.X, c.Y + r, c.Z));
            yield return new Segment(new Point3(c.X, c.Y, c.Z - r), new Point3(c.X, c.Y, c.Z + r));
        }

        static Point3 Add(Point3 a, Point3 b) => new Point3(a.X + b.X, a.Y + b.Y, a.Z + b.Z);
        static Point3 Sub(Point3 a, Point3 b) => new Point3(a.X - b.X, a.Y - b.Y, a.Z - b.Z);
        static Point3 Scale(Point3 a, double k) => new Point3(a.X * k, a.Y * k, a.Z * k);
        static double Length(Point3 a) => Math.Sqrt(a.X * a.X + a.Y * a.Y + a.Z * a.Z);
        static Point3 Cross(Point3 a, Point3 b) => new Point3(a.Y * b.Z - a.Z * b.Y, a.Z * b.X - a.X * b.Z, a.X * b.Y - a.Y * b.X);

        /// The three tools over `ledger`, in module `markers`.
        public static void Register(ToolRegistry registry, MarkerLedger ledger)
        {
            registry.Add(new MarkerAddTool(ledger));
            registry.Add(new MarkerListTool(ledger));
            registry.Add(new MarkerClearTool(ledger));
        }
    }
}
