import Foundation

/// Hands the slots that `Setting.init` creates to the settings object being initialized.
///
/// Swift initializes a subclass's stored properties (and so creates its `@Setting` slots) before
/// it calls up to `AppSettingsObject.init`, on the same thread. Each `Setting.init` pushes its
/// slot on a per-thread stack; `AppSettingsObject.init` pops the number of slots its class
/// declares. A nested settings object created in a property initializer pushes and pops its own
/// slots in between, so the stack stays balanced. The first instance of each class checks the
/// popped slots against its `@Setting` properties (``StoredFields``) and records their order; later
/// instances skip that walk.
enum SlotRegistration {
    private final class Stack {
        var slots: [AnySettingSlot] = []
    }

    private static let stack = ThreadLocalObject { Stack() }

    static func push(_ slot: AnySettingSlot) {
        stack.value.slots.append(slot)
    }

    /// Removes and returns the `count` slots pushed last, oldest first; `nil` if there are fewer.
    static func pop(_ count: Int) -> [AnySettingSlot]? {
        let stack = self.stack.value
        guard stack.slots.count >= count else { return nil }
        let popped = Array(stack.slots.suffix(count))
        stack.slots.removeLast(count)
        return popped
    }

    /// The slots pushed and not popped on this thread.
    static var pending: [AnySettingSlot] { stack.value.slots }

    /// Removes the given slots wherever they are (after the walk of the stored properties found them).
    static func remove(_ slots: [AnySettingSlot]) {
        let identities = Set(slots.map(ObjectIdentifier.init))
        stack.value.slots.removeAll { identities.contains(ObjectIdentifier($0)) }
    }
}
