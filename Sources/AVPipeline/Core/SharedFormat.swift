/// A stream's format, boxed once and shared by every packet of the stream. The formats hold
/// strings, dictionaries and the codec parameters: stored in each packet, every packet made and
/// freed retained and released all of them (~400 instructions a packet in a copy job); a packet
/// holds this one reference instead.
final class SharedFormat<Format: EncodedStreamFormat>: Sendable {
    /// `value.timeBase`, stored first so that generic code reads it at a fixed offset, without
    /// going through `Format`'s witnesses.
    let timeBase: Rational
    let value: Format
    init(_ value: Format) {
        timeBase = value.timeBase
        self.value = value
    }
}
