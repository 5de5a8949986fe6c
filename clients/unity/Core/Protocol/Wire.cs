// Typed protocol objects <-> parsed JSON, by reflection over [Wire] fields. The classes are
// generated from docs/protocol.schema.json (Generated/, scripts/gen-csharp); their names and
// required-ness are compared with the schema again by the contract test.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Reflection;
using Codiva.Json;

namespace Codiva.Protocol
{
    /// A member of a protocol object: its JSON name, whether the schema requires it, and, for a
    /// member that branches of a union type differently, the branches (values of the class's
    /// `Tag`, comma-separated) it is read and written for.
    [AttributeUsage(AttributeTargets.Field)]
    public sealed class WireAttribute : Attribute
    {
        public readonly string Name;
        public bool Required;
        public string Variants;
        public WireAttribute(string name) { Name = name; }

        internal bool For(object tag) =>
            Variants == null || (tag is string value && Array.IndexOf(Variants.Split(','), value) >= 0);
    }

    /// The schema definition (`$defs/<Name>`) a class stands for; `Tag` is the member that says
    /// which branch of a union (`oneOf`) an object is (`event: "status"`).
    [AttributeUsage(AttributeTargets.Class)]
    public sealed class SchemaAttribute : Attribute
    {
        public readonly string Name;
        public string Tag;
        public SchemaAttribute(string name) { Name = name; }
    }

    public static class Wire
    {
        static readonly Dictionary<Type, List<KeyValuePair<FieldInfo, WireAttribute>>> Cache =
            new Dictionary<Type, List<KeyValuePair<FieldInfo, WireAttribute>>>();

        public static List<KeyValuePair<FieldInfo, WireAttribute>> Fields(Type type)
        {
            lock (Cache)
            {
                List<KeyValuePair<FieldInfo, WireAttribute>> fields;
                if (Cache.TryGetValue(type, out fields)) return fields;
                fields = new List<KeyValuePair<FieldInfo, WireAttribute>>();
                foreach (var field in type.GetFields(BindingFlags.Public | BindingFlags.Instance))
                {
                    var wire = field.GetCustomAttribute<WireAttribute>();
                    if (wire != null) fields.Add(new KeyValuePair<FieldInfo, WireAttribute>(field, wire));
                }
                Cache[type] = fields;
                return fields;
            }
        }

        /// The JSON form of a typed value (null members are left out unless required).
        public static object ToJson(object value)
        {
            if (value == null) return null;
            var type = value.GetType();
            if (value is string || value is bool || value is long || value is int || value is double) return value;
            if (type.GetCustomAttribute<SchemaAttribute>() != null || Fields(type).Count > 0)
            {
                var obj = new Dictionary<string, object>();
                var tag = Tag(type, value);
                foreach (var pair in Fields(type))
                {
                    var member = pair.Key.GetValue(value);
                    if (member == null && !pair.Value.Required) continue;
                    if (!pair.Value.For(tag)) continue;
                    obj[pair.Value.Name] = ToJson(member);
                }
                return obj;
            }
            if (value is IDictionary dict)
            {
                var obj = new Dictionary<string, object>();
                foreach (DictionaryEntry entry in dict) obj[(string)entry.Key] = ToJson(entry.Value);
                return obj;
            }
            if (value is IEnumerable list)
            {
                var array = new List<object>();
                foreach (var item in list) array.Add(ToJson(item));
                return array;
            }
            throw new JsonException("cannot write a " + type.Name);
        }

        public static T FromJson<T>(object json) => (T)FromJson(typeof(T), json);

        /// Reads `json` as `type`; members the type does not know are ignored, a member of the
        /// wrong type reads as absent (the protocol adds fields and enum values over time).
        public static object FromJson(Type type, object json)
        {
            if (type == typeof(object)) return json;
            var nullable = Nullable.GetUnderlyingType(type);
            if (nullable != null) return json == null ? null : FromJson(nullable, json);
            if (type == typeof(string)) return json as string;
            if (type == typeof(bool)) return json is bool b && b;
            if (type == typeof(long)) return json is long l ? l : json is double d ? (long)d : 0L;
            if (type == typeof(int)) return json is long i ? (int)i : 0;
            if (type == typeof(double)) return json is double x ? x : json is long y ? (double)y : 0.0;
            if (type.IsGenericType && type.GetGenericTypeDefinition() == typeof(List<>))
            {
                var list = (IList)Activator.CreateInstance(type);
                if (json is List<object> items)
                {
                    var itemType = type.GetGenericArguments()[0];
                    foreach (var item in items) list.Add(FromJson(itemType, item));
                }
                return list;
            }
            if (type.IsGenericType && type.GetGenericTypeDefinition() == typeof(Dictionary<,>))
            {
                var dict = (IDictionary)Activator.CreateInstance(type);
                if (json is Dictionary<string, object> members)
                {
                    var valueType = type.GetGenericArguments()[1];
                    foreach (var pair in members) dict[pair.Key] = FromJson(valueType, pair.Value);
                }
                return dict;
            }
            var obj = json as Dictionary<string, object>;
            if (obj == null) return null;
            var result = Activator.CreateInstance(type);
            var schema = type.GetCustomAttribute<SchemaAttribute>();
            object tag = null;
            if (schema != null && schema.Tag != null) obj.TryGetValue(schema.Tag, out tag);
            foreach (var pair in Fields(type))
            {
                object member;
                if (pair.Value.For(tag) && obj.TryGetValue(pair.Value.Name, out member))
                    pair.Key.SetValue(result, FromJson(pair.Key.FieldType, member));
            }
            return result;
        }

        /// The value of a union's tag member in `value` (null for a class that is no union).
        static object Tag(Type type, object value)
        {
            var schema = type.GetCustomAttribute<SchemaAttribute>();
            if (schema == null || schema.Tag == null) return null;
            foreach (var pair in Fields(type))
                if (pair.Value.Name == schema.Tag && pair.Value.Variants == null) return pair.Key.GetValue(value);
            return null;
        }
    }
}
