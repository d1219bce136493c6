// swift-format-ignore-file: AllPublicDeclarationsHaveDocumentation
// (a stand-in: each declaration is documented by Apple, on the page named above it)
// A stand-in for the part of SwiftUI that the README's snippets use, so that they are type-checked
// on Linux, where SwiftUI does not exist. Each declaration has the signature of Apple's SDK (from
// its documentation page, named above it); the bodies do nothing: this module is compiled, never
// run. On Apple platforms the package uses the real SwiftUI instead (see Package.swift).

import Observation

// https://developer.apple.com/documentation/swiftui/view
// `@MainActor @preconcurrency protocol View { associatedtype Body : View;
//  @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get } }`
@MainActor @preconcurrency public protocol View {
    associatedtype Body: View
    @ViewBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: View {
    public var body: Never { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/scene
@MainActor @preconcurrency public protocol Scene {
    associatedtype Body: Scene
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension Never: Scene {}

// https://developer.apple.com/documentation/swiftui/app
// `@MainActor @preconcurrency protocol App { associatedtype Body : Scene; init();
//  @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get } }`, and `static func main()`.
@MainActor @preconcurrency public protocol App {
    associatedtype Body: Scene
    init()
    @SceneBuilder @MainActor @preconcurrency var body: Self.Body { get }
}

extension App {
    @MainActor @preconcurrency public static func main() {}
}

// https://developer.apple.com/documentation/swiftui/viewbuilder
@resultBuilder public struct ViewBuilder {
    public static func buildBlock() -> EmptyView { EmptyView() }
    public static func buildBlock<Content: View>(_ content: Content) -> Content { content }
    public static func buildBlock<each Content: View>(_ content: repeat each Content) -> TupleView<
        (repeat each Content)
    > {
        TupleView((repeat each content))
    }
    public static func buildIf<Content: View>(_ content: Content?) -> Content? { content }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        first: TrueContent
    ) -> ConditionalContent<TrueContent, FalseContent> { ConditionalContent() }
    public static func buildEither<TrueContent: View, FalseContent: View>(
        second: FalseContent
    ) -> ConditionalContent<TrueContent, FalseContent> { ConditionalContent() }
}

// https://developer.apple.com/documentation/swiftui/scenebuilder
@resultBuilder public struct SceneBuilder {
    public static func buildBlock<Content: Scene>(_ content: Content) -> Content { content }
}

extension Optional: View where Wrapped: View {
    public var body: Never { fatalError() }
}

public struct EmptyView: View {
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

public struct TupleView<T>: View {
    nonisolated public init(_ value: T) {}
    public var body: Never { fatalError() }
}

/// `_ConditionalContent` in Apple's SDK.
public struct ConditionalContent<TrueContent, FalseContent>: View {
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/localizedstringkey
public struct LocalizedStringKey: ExpressibleByStringInterpolation, Equatable {
    public init(stringLiteral value: String) {}
    public init(stringInterpolation: DefaultStringInterpolation) {}
}

// https://developer.apple.com/documentation/swiftui/binding
// `@frozen @propertyWrapper @dynamicMemberLookup struct Binding<Value>`
@propertyWrapper @dynamicMemberLookup public struct Binding<Value> {
    public init(get: @escaping () -> Value, set: @escaping (Value) -> Void) {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { self }
    public subscript<Subject>(dynamicMember keyPath: WritableKeyPath<Value, Subject>) -> Binding<Subject> {
        fatalError()
    }
}

extension Binding: Sendable where Value: Sendable {}

// https://developer.apple.com/documentation/swiftui/bindable
// `@dynamicMemberLookup @propertyWrapper struct Bindable<Value>`;
// `init(wrappedValue: Value) where Value : AnyObject, Value : Observable`;
// `subscript<Subject>(dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>) -> Binding<Subject>`
@propertyWrapper @dynamicMemberLookup public struct Bindable<Value> {
    public var wrappedValue: Value
    public var projectedValue: Bindable<Value> { self }
    public init(wrappedValue: Value) where Value: AnyObject, Value: Observable {
        self.wrappedValue = wrappedValue
    }
    public subscript<Subject>(
        dynamicMember keyPath: ReferenceWritableKeyPath<Value, Subject>
    ) -> Binding<Subject> where Value: AnyObject {
        fatalError()
    }
}

// https://developer.apple.com/documentation/swiftui/state
// `@frozen @propertyWrapper struct State<Value>`; `init(wrappedValue value: Value)`; `init() where Value: ExpressibleByNilLiteral`
@propertyWrapper public struct State<Value> {
    public init(wrappedValue value: Value) {}
    public init() where Value: ExpressibleByNilLiteral {}
    public var wrappedValue: Value {
        get { fatalError() }
        nonmutating set {}
    }
    public var projectedValue: Binding<Value> { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/environment
// `@frozen @propertyWrapper struct Environment<Value>`; `init(_ keyPath: KeyPath<EnvironmentValues, Value>)`
@propertyWrapper public struct Environment<Value> {
    public init(_ keyPath: KeyPath<EnvironmentValues, Value>) {}
    public var wrappedValue: Value { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/environmentvalues/scenephase
public struct EnvironmentValues {
    public var scenePhase: ScenePhase { .active }
}

// https://developer.apple.com/documentation/swiftui/scenephase
// `enum ScenePhase { case background, inactive, active }` (Comparable, Hashable, Sendable)
public enum ScenePhase: Comparable, Hashable, Sendable {
    case background
    case inactive
    case active
}

// https://developer.apple.com/documentation/swiftui/windowgroup
// `init(@ViewBuilder content: () -> Content)`
public struct WindowGroup<Content: View>: Scene {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/form
public struct Form<Content: View>: View {
    nonisolated public init(@ViewBuilder content: () -> Content) {}
    public var body: Never { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/text
public struct Text: View {
    nonisolated public init(_ key: LocalizedStringKey) {}
    nonisolated public init(verbatim content: String) {}
    @_disfavoredOverload nonisolated public init<S: StringProtocol>(_ content: S) {}
    public var body: Never { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/button
// `init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void)` where Label == Text
public struct Button<Label: View>: View {
    public var body: Never { fatalError() }
}

extension Button where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, action: @escaping @MainActor () -> Void) {}
}

// https://developer.apple.com/documentation/swiftui/toggle
// `init(_ titleKey: LocalizedStringKey, isOn: Binding<Bool>)` where Label == Text
public struct Toggle<Label: View>: View {
    public var body: Never { fatalError() }
}

extension Toggle where Label == Text {
    nonisolated public init(_ titleKey: LocalizedStringKey, isOn: Binding<Bool>) {}
}

// https://developer.apple.com/documentation/swiftui/slider
// `init<V>(value: Binding<V>, in bounds: ClosedRange<V> = 0...1, onEditingChanged: @escaping (Bool) -> Void = { _ in })
//  where V : BinaryFloatingPoint, V.Stride : BinaryFloatingPoint`
public struct Slider<Label: View, ValueLabel: View>: View {
    public var body: Never { fatalError() }
}

extension Slider where Label == EmptyView, ValueLabel == EmptyView {
    nonisolated public init<V: BinaryFloatingPoint>(
        value: Binding<V>,
        in bounds: ClosedRange<V> = 0...1,
        onEditingChanged: @escaping (Bool) -> Void = { _ in }
    ) where V.Stride: BinaryFloatingPoint {}
}

public struct ModifiedScene<Content>: Scene {
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

public struct ModifiedView<Content>: View {
    nonisolated public init() {}
    public var body: Never { fatalError() }
}

// https://developer.apple.com/documentation/swiftui/scene/onchange(of:initial:_:)-8hmxa
// `nonisolated func onChange<V>(of value: V, initial: Bool = false, _ action: @escaping (V, V) -> Void)
//  -> some Scene where V : Equatable`
extension Scene {
    nonisolated public func onChange<V: Equatable>(
        of value: V,
        initial: Bool = false,
        _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some Scene {
        ModifiedScene<Self>()
    }
}

// https://developer.apple.com/documentation/swiftui/view/onchange(of:initial:_:)-4psgg
extension View {
    nonisolated public func onChange<V: Equatable>(
        of value: V,
        initial: Bool = false,
        _ action: @escaping (_ oldValue: V, _ newValue: V) -> Void
    ) -> some View {
        ModifiedView<Self>()
    }
}
