/// One unit of media flowing between stages: a chunk of PCM (`PCMBuffer`), an encoded packet, a
/// decoded picture (`VideoFrame`). Buffers are reference types that own their FFmpeg data and are
/// *moved* downstream: a stage that hands a buffer on no longer touches it.
public protocol SampleBuffer: AnyObject {
    /// What describes the whole stream this buffer belongs to (PCM layout, codec parameters…).
    associatedtype Format: Sendable

    /// The format of the stream this buffer belongs to.
    var format: Format { get }
    /// When the buffer is to be presented; nil when the source does not know.
    var presentationTime: MediaTime? { get }
    /// How long the buffer lasts; nil when the source does not know.
    var duration: MediaTime? { get }
}
