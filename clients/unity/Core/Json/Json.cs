// A small JSON reader and writer (RFC 8259) for the codiva client: Unity ships no JSON
// library that reads arbitrary documents (JsonUtility maps fixed classes only), and the
// package takes no third-party dependency.
//
// Values: null, bool, long (integers that fit), double (other numbers), string,
// List<object> (arrays), Dictionary<string, object> (objects, insertion order kept).
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Codiva.Json
{
    public sealed class JsonException : Exception
    {
        public JsonException(string message) : base(message) { }
    }

    public static class JsonText
    {
        const int MaxDepth = 512;

        public static object Parse(string text)
        {
            if (text == null) throw new ArgumentNullException(nameof(text));
            var reader = new Reader(text);
            reader.SkipSpace();
            var value = reader.ReadValue(0);
            reader.SkipSpace();
            if (!reader.AtEnd) throw reader.Error("trailing characters");
            return value;
        }

        public static string Write(object value)
        {
            var builder = new StringBuilder();
            WriteValue(builder, value, 0);
            return builder.ToString();
        }

        sealed class Reader
        {
            readonly string text;
            int pos;

            public Reader(string text) { this.text = text; }

            public bool AtEnd => pos >= text.Length;

            public JsonException Error(string what) =>
                new JsonException("JSON: " + what + " at offset " + pos);

            public void SkipSpace()
            {
                while (pos < text.Length)
                {
                    var c = text[pos];
                    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') pos++;
                    else break;
                }
            }

            public object ReadValue(int depth)
            {
                if (depth > MaxDepth) throw Error("nesting too deep");
                if (AtEnd) throw Error("unexpected end");
                var c = text[pos];
                switch (c)
                {
                    case '{': return ReadObject(depth);
                    case '[': return ReadArray(depth);
                    case '"': return ReadString();
                    case 't': Expect("true"); return true;
                    case 'f': Expect("false"); return false;
                    case 'n': Expect("null"); return null;
                    default:
                        if (c == '-' || (c >= '0' && c <= '9')) return ReadNumber();
                        throw Error("unexpected character '" + c + "'");
                }
            }

            void Expect(string word)
            {
                if (string.CompareOrdinal(text, pos, word, 0, word.Length) != 0) throw Error("expected " + word);
                pos += word.Length;
            }

            Dictionary<string, object> ReadObject(int depth)
            {
                pos++;
                var result = new Dictionary<string, object>();
                SkipSpace();
                if (!AtEnd && text[pos] == '}') { pos++; return result; }
                while (true)
                {
                    SkipSpace();
                    if (AtEnd || text[pos] != '"') throw Error("expected a member name");
                    var key = ReadString();
                    SkipSpace();
                    if (AtEnd || text[pos] != ':') throw Error("expected ':'");
                    pos++;
                    SkipSpace();
                    result[key] = ReadValue(depth + 1);
                    SkipSpace();
                    if (AtEnd) throw Error("unexpected end in an object");
                    if (text[pos] == ',') { pos++; continue; }
                    if (text[pos] == '}') { pos++; return result; }
                    throw Error("expected ',' or '}'");
                }
            }

            List<object> ReadArray(int depth)
            {
                pos++;
                var result = new List<object>();
                SkipSpace();
                if (!AtEnd && text[pos] == ']') { pos++; return result; }
                while (true)
                {
                    SkipSpace();
                    result.Add(ReadValue(depth + 1));
                    SkipSpace();
                    if (AtEnd) throw Error("unexpected end in an array");
                    if (text[pos] == ',') { pos++; continue; }
                    if (text[pos] == ']') { pos++; return result; }
                    throw Error("expected ',' or ']'");
                }
            }

            string ReadString()
            {
                pos++;
                StringBuilder builder = null;
                var start = pos;
                while (true)
                {
                    if (AtEnd) throw Error("unterminated string");
                    var c = text[pos];
                    if (c == '"')
                    {
                        string tail = text.Substring(start, pos - start);
                        pos++;
                        return builder == null ? tail : builder.Append(tail).ToString();
                    }
                    if (c < 0x20) throw Error("control character in a string");
                    if (c != '\\') { pos++; continue; }
                    if (builder == null) builder = new StringBuilder();
                    builder.Append(text, start, pos - start);
                    pos++;
                    if (AtEnd) throw Error("unterminated escape");
                    var e = text[pos++];
                    switch (e)
                    {
                        case '"': builder.Append('"'); break;
                        case '\\': builder.Append('\\'); break;
                        case '/': builder.Append('/'); break;
                        case 'b': builder.Append('\b'); break;
                        case 'f': builder.Append('\f'); break;
                        case 'n': builder.Append('\n'); break;
                        case 'r': builder.Append('\r'); break;
                        case 't': builder.Append('\t'); break;
                        case 'u':
                            if (pos + 4 > text.Length) throw Error("short \\u escape");
                            int code;
                            if (!int.TryParse(text.Substring(pos, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out code))
                                throw Error("bad \\u escape");
                            builder.Append((char)code);
                            pos += 4;
                            break;
                        default: throw Error("bad escape '\\" + e + "'");
                    }
                    start = pos;
                }
            }

            object ReadNumber()
            {
                var start = pos;
                if (text[pos] == '-') pos++;
                if (AtEnd) throw Error("bad number");
                if (text[pos] == '0') pos++;
                else if (text[pos] >= '1' && text[pos] <= '9') { while (!AtEnd && char.IsDigit(text[pos])) pos++; }
                else throw Error("bad number");
                var integral = true;
                if (!AtEnd && text[pos] == '.')
                {
                    integral = false;
                    pos++;
                    if (AtEnd || !char.IsDigit(text[pos])) throw Error("bad fraction");
                    while (!AtEnd && char.IsDigit(text[pos])) pos++;
                }
                if (!AtEnd && (text[pos] == 'e' || text[pos] == 'E'))
                {
                    integral = false;
                    pos++;
                    if (!AtEnd && (text[pos] == '+' || text[pos] == '-')) pos++;
                    if (AtEnd || !char.IsDigit(text[pos])) throw Error("bad exponent");
                    while (!AtEnd && char.IsDigit(text[pos])) pos++;
                }
                var literal = text.Substring(start, pos - start);
                long asLong;
                if (integral && long.TryParse(literal, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out asLong))
                    return asLong;
                // A number past a double's range is an error of the text (Mono's double.Parse
                // would throw OverflowException, which no caller expects of a parse).
                double asDouble;
                if (!double.TryParse(literal, NumberStyles.Float, CultureInfo.InvariantCulture, out asDouble) || double.IsInfinity(asDouble))
                    throw Error("number out of range");
                return asDouble;
            }
        }

        static void WriteValue(StringBuilder b, object value, int depth)
        {
            if (depth > MaxDepth) throw new JsonException("JSON: nesting too deep to write");
            if (value == null) { b.Append("null"); return; }
            if (value is bool flag) { b.Append(flag ? "true" : "false"); return; }
            if (value is string s) { WriteString(b, s); return; }
            if (value is int i) { b.Append(i.ToString(CultureInfo.InvariantCulture)); return; }
            if (value is long l) { b.Append(l.ToString(CultureInfo.InvariantCulture)); return; }
            if (value is ulong u) { b.Append(u.ToString(CultureInfo.InvariantCulture)); return; }
            if (value is float f) { WriteValue(b, (double)f, depth); return; }
            if (value is double d)
            {
                if (double.IsNaN(d) || double.IsInfinity(d)) throw new JsonException("JSON: " + d + " is not a JSON number");
                b.Append(d.ToString("R", CultureInfo.InvariantCulture));
                return;
            }
            if (value is IDictionary<string, object> obj)
            {
                b.Append('{');
                var first = true;
                foreach (var pair in obj)
                {
                    if (!first) b.Append(',');
                    first = false;
                    WriteString(b, pair.Key);
                    b.Append(':');
                    WriteValue(b, pair.Value, depth + 1);
                }
                b.Append('}');
                return;
            }
            if (value is IEnumerable list)
            {
                b.Append('[');
                var first = true;
                foreach (var item in list)
                {
                    if (!first) b.Append(',');
                    first = false;
                    WriteValue(b, item, depth + 1);
                }
                b.Append(']');
                return;
            }
            throw new JsonException("JSON: cannot write a " + value.GetType().Name);
        }

        static void WriteString(StringBuilder b, string s)
        {
            b.Append('"');
            foreach (var c in s)
            {
                switch (c)
                {
                    case '"': b.Append("\\\""); break;
                    case '\\': b.Append("\\\\"); break;
                    case '\n': b.Append("\\n"); break;
                    case '\r': b.Append("\\r"); break;
                    case '\t': b.Append("\\t"); break;
                    default:
                        // Control characters, and the two separators JavaScript treats as line ends,
                        // escaped: one message stays one line.
                        if (c < 0x20 || c == '\u2028' || c == '\u2029' || c == '\u007f')
                            b.Append("\\u").Append(((int)c).ToString("x4", CultureInfo.InvariantCulture));
                        else b.Append(c);
                        break;
                }
            }
            b.Append('"');
        }
    }

    /// Reading helpers over parsed values (a missing member or a wrong type reads as the default).
    public static class JsonRead
    {
        public static Dictionary<string, object> Obj(object value) => value as Dictionary<string, object>;

        public static object Get(object value, string key)
        {
            var obj = Obj(value);
            object member;
            return obj != null && obj.TryGetValue(key, out member) ? member : null;
        }

        public static string Str(object value, string key) => Get(value, key) as string;

        public static long? Long(object value, string key)
        {
            var member = Get(value, key);
            if (member is long l) return l;
            if (member is double d && Math.Floor(d) == d) return (long)d;
            return null;
        }

        public static List<object> Arr(object value, string key) => Get(value, key) as List<object>;
    }
}
