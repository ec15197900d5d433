/// One unit of media flowing between stages: a chunk of PCM, a decoded picture, an encoded packet.
/// Buffers are reference types that own their FFmpeg data and are *moved* downstream: a stage that
/// hands a buffer on no longer touches it.
public protocol SampleBuffer: AnyObject {
    /// What describes the whole stream this buffer belongs to (PCM layout, codec parameters…).
    associatedtype Format: Sendable

    var format: Format { get }
    /// When the buffer is to be presented; nil when the source does not know.
    var presentationTime: MediaTime? { get }
    var duration: MediaTime? { get }
}
