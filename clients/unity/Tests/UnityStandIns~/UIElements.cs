// Stand-ins for the part of UI Toolkit (UnityEngine.UIElements) that Editor/*.cs calls (see
// UnityEngine.cs for what these are and why this folder is never compiled by Unity). Each member
// names the Scripting Reference page (2022.3) whose signature it copies; the base classes the code
// never names (BindableElement, BaseVerticalCollectionView, TextInputBaseField, …) are left out.
using System;
using System.Collections;
using System.Collections.Generic;

namespace UnityEngine.UIElements
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement.html
    public class VisualElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement-ctor.html
        public VisualElement() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement-style.html
        public IStyle style => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement-name.html
        public string name { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement-tooltip.html
        public string tooltip { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement-childCount.html
        public int childCount => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement.Index_operator.html
        public VisualElement this[int key] => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement.Add.html
        public void Add(VisualElement child) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement.Clear.html
        public void Clear() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement.AddToClassList.html
        public void AddToClassList(string className) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.VisualElement.SetEnabled.html
        public void SetEnabled(bool value) => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.CallbackEventHandler.RegisterCallback.html
        // (declared on CallbackEventHandler, a base of VisualElement)
        public void RegisterCallback<TEventType>(EventCallback<TEventType> callback, TrickleDown useTrickleDown = TrickleDown.NoTrickleDown)
            where TEventType : EventBase<TEventType>, new() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.EventBase_1.html
    // (its own base, EventBase, is never named)
    public abstract class EventBase<T> where T : EventBase<T>, new()
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TrickleDown.html
    public enum TrickleDown
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TrickleDown.NoTrickleDown.html
        NoTrickleDown = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TrickleDown.TrickleDown.html
        TrickleDown = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.KeyDownEvent.html
    // (its bases KeyboardEventBase<T> and EventBase are never named: their members are declared here)
    public class KeyDownEvent : EventBase<KeyDownEvent>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.KeyDownEvent-ctor.html
        public KeyDownEvent() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.KeyboardEventBase_1-keyCode.html
        public KeyCode keyCode => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.KeyboardEventBase_1-shiftKey.html
        public bool shiftKey => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.EventBase.StopPropagation.html
        public void StopPropagation() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.EventBase.PreventDefault.html
        public void PreventDefault() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DragUpdatedEvent.html
    // (its bases DragAndDropEventBase<T> and MouseEventBase<T> are never named)
    public class DragUpdatedEvent : EventBase<DragUpdatedEvent>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DragUpdatedEvent-ctor.html
        public DragUpdatedEvent() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DragPerformEvent.html
    public class DragPerformEvent : EventBase<DragPerformEvent>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DragPerformEvent-ctor.html
        public DragPerformEvent() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DisplayStyle.html
    public enum DisplayStyle
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DisplayStyle.Flex.html
        Flex = 0,
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.DisplayStyle.None.html
        None = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.UQueryExtensions.html
    public static class UQueryExtensions
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.UQueryExtensions.Q.html
        public static T Q<T>(this VisualElement e, string name = null, params string[] classes) where T : VisualElement => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TextElement.html
    public class TextElement : VisualElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TextElement-text.html
        public virtual string text { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Label.html
    public class Label : TextElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Label-ctor.html
        public Label() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Label-ctor.html
        public Label(string text) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Button.html
    public class Button : TextElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Button-ctor.html
        public Button(Action clickEvent) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ScrollView.html
    public class ScrollView : VisualElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ScrollView-ctor.html
        public ScrollView() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ListView.html
    public class ListView : VisualElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ListView-ctor.html
        public ListView() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ListView-makeItem.html
        public Func<VisualElement> makeItem { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ListView-bindItem.html
        public Action<VisualElement, int> bindItem { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseVerticalCollectionView-itemsSource.html
        public IList itemsSource { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseVerticalCollectionView-selectionType.html
        public SelectionType selectionType { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseVerticalCollectionView-selectionChanged.html
        public event Action<IEnumerable<object>> selectionChanged { add => throw null; remove => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseVerticalCollectionView.RefreshItems.html
        public void RefreshItems() => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.SelectionType.html
    public enum SelectionType
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.SelectionType.Single.html
        Single = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TwoPaneSplitView.html
    public class TwoPaneSplitView : VisualElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TwoPaneSplitView-ctor.html
        public TwoPaneSplitView(int fixedPaneIndex, float fixedPaneStartDimension, TwoPaneSplitViewOrientation orientation) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TwoPaneSplitViewOrientation.html
    public enum TwoPaneSplitViewOrientation
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TwoPaneSplitViewOrientation.Horizontal.html
        Horizontal = 0,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Foldout.html
    // (a BindableElement that is an INotifyValueChanged<bool>)
    public class Foldout : VisualElement, INotifyValueChanged<bool>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Foldout-ctor.html
        public Foldout() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Foldout-text.html
        public string text { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Foldout-value.html
        public bool value { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseField_1.html
    public abstract class BaseField<TValueType> : VisualElement, INotifyValueChanged<TValueType>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseField_1-value.html
        public virtual TValueType value { get => throw null; set => throw null; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.BaseField_1.SetValueWithoutNotify.html
        public virtual void SetValueWithoutNotify(TValueType newValue) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Toggle.html (a BaseBoolField)
    public class Toggle : BaseField<bool>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Toggle-ctor.html
        public Toggle(string label) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TextField.html (a TextInputBaseField<string>)
    public class TextField : BaseField<string>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TextField-ctor.html
        public TextField() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.TextField-multiline.html
        public bool multiline { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.INotifyValueChanged_1.html
    // (its value and SetValueWithoutNotify are called on the fields themselves, not through it)
    public interface INotifyValueChanged<T>
    {
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.INotifyValueChangedExtensions.html
    public static class INotifyValueChangedExtensions
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.INotifyValueChangedExtensions.RegisterValueChangedCallback.html
        public static bool RegisterValueChangedCallback<T>(this INotifyValueChanged<T> control, EventCallback<ChangeEvent<T>> callback) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.EventCallback_1.html
    public delegate void EventCallback<in TEventType>(TEventType evt);

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ChangeEvent_1.html
    public class ChangeEvent<T>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.ChangeEvent_1-newValue.html
        public T newValue { get => throw null; protected set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Image.html
    public class Image : VisualElement
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Image-ctor.html
        public Image() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Image-image.html
        public Texture image { get => throw null; set => throw null; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle.html
    public interface IStyle
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-flexDirection.html
        StyleEnum<FlexDirection> flexDirection { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-flexGrow.html
        StyleFloat flexGrow { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-flexShrink.html
        StyleFloat flexShrink { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-flexWrap.html
        StyleEnum<Wrap> flexWrap { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-minHeight.html
        StyleLength minHeight { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-width.html
        StyleLength width { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-height.html
        StyleLength height { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-whiteSpace.html
        StyleEnum<WhiteSpace> whiteSpace { get; set; }
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.IStyle-display.html
        StyleEnum<DisplayStyle> display { get; set; }
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.StyleEnum_1.html
    public struct StyleEnum<T> where T : struct, IConvertible
    {
        // We found no Scripting Reference page for this implicit conversion (the type page above
        // documents the constructor from the value); declaring it is our reading of how UI Toolkit
        // styles are set from C# (`element.style.flexGrow = 1`).
        public static implicit operator StyleEnum<T>(T v) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.StyleFloat.html
    public struct StyleFloat
    {
        // We found no Scripting Reference page for this implicit conversion (the type page above
        // documents the constructor from the value); declaring it is our reading of how UI Toolkit
        // styles are set from C# (`element.style.flexGrow = 1`).
        public static implicit operator StyleFloat(float v) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.StyleLength.html
    public struct StyleLength
    {
        // We found no Scripting Reference page for this implicit conversion (the type page above
        // documents the constructor from the value); declaring it is our reading of how UI Toolkit
        // styles are set from C# (`element.style.flexGrow = 1`).
        public static implicit operator StyleLength(float v) => throw null;
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.FlexDirection.html
    public enum FlexDirection
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.FlexDirection.Row.html
        Row = 2,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Wrap.html
    public enum Wrap
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Wrap.Wrap.html
        Wrap = 1,
    }

    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.WhiteSpace.html
    public enum WhiteSpace
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.WhiteSpace.Normal.html
        Normal = 0,
    }
}

namespace UnityEngine.UIElements.Experimental
{
    // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Experimental.PointerDownLinkTagEvent.html
    // (experimental in 2022.3; its base PointerEventBase<T> is never named: declared on EventBase<T>)
    public sealed class PointerDownLinkTagEvent : EventBase<PointerDownLinkTagEvent>
    {
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Experimental.PointerDownLinkTagEvent-ctor.html
        public PointerDownLinkTagEvent() => throw null;
        // https://docs.unity3d.com/2022.3/Documentation/ScriptReference/UIElements.Experimental.PointerDownLinkTagEvent-linkID.html
        public string linkID;
    }
}
