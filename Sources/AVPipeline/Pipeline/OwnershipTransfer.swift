/// Carries a non-`Sendable` value (a packet, a buffer, a stage) from one task to another.
/// `@unchecked Sendable` is sound because ownership moves with it: the sending side never touches
/// the value again once it is handed over, so only one task ever uses it at a time.
package struct OwnershipTransfer<Value>: @unchecked Sendable {
    package let value: Value

    package init(_ value: Value) { self.value = value }
}
