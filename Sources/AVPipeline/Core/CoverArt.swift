internal import CFFmpeg

/// A picture embedded in an audio file (an album cover): a PNG or JPEG, as stored. MP4/M4A keep it
/// in the `covr` tag, MP3 in an ID3 `APIC` frame, FLAC in a `PICTURE` block; FFmpeg presents each as
/// an "attached picture" stream.
public struct CoverArt: Sendable, Equatable {
    /// How the picture is encoded.
    public enum Format: String, Sendable {
        /// A PNG picture.
        case png
        /// A JPEG picture.
        case jpeg
    }
    /// How `bytes` are encoded.
    public let format: Format
    /// The picture file's bytes, as stored in the media file.
    public let bytes: [UInt8]
    /// The picture's width in pixels (muxers want the size declared).
    public let width: Int
    /// The picture's height in pixels.
    public let height: Int

    /// A cover picture from its encoded bytes and its size.
    public init(format: Format, bytes: [UInt8], width: Int, height: Int) {
        self.format = format
        self.bytes = bytes
        self.width = width
        self.height = height
    }

    /// The picture of an attached-picture stream, when it is a PNG or a JPEG.
    init?(stream: UnsafePointer<AVStream>) {
        guard stream.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC != 0 else { return nil }
        let picture = stream.pointee.attached_pic
        guard let data = picture.data, picture.size > 0 else { return nil }
        switch stream.pointee.codecpar.pointee.codec_id {
        case AV_CODEC_ID_PNG: format = .png
        case AV_CODEC_ID_MJPEG: format = .jpeg
        default: return nil
        }
        bytes = Array(UnsafeBufferPointer(start: data, count: Int(picture.size)))
        width = Int(stream.pointee.codecpar.pointee.width)
        height = Int(stream.pointee.codecpar.pointee.height)
    }

    var codecID: AVCodecID { format == .png ? AV_CODEC_ID_PNG : AV_CODEC_ID_MJPEG }
}
