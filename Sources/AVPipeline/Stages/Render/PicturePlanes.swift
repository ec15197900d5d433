internal import CFFmpeg

/// What a window needs of a picture to upload it into a texture: its planes' memory and line
/// sizes, and how its colours are coded; so that a device needs no FFmpeg headers of its own.
package struct PicturePlanes {
    /// The first three planes' memory (nil past the format's planes); valid while the picture lives.
    package let data: [UnsafeMutablePointer<UInt8>?]
    /// Bytes per line of each of `data`'s planes.
    package let lineSizes: [Int32]
    /// Full-range ("JPEG") levels rather than limited ("TV") ones.
    package let isFullRange: Bool
    /// BT.709 colours rather than BT.601.
    package let isBT709: Bool
}

extension VideoFrame {
    /// The planes of this picture, as a window uploads them.
    package var planes: PicturePlanes {
        let frame = frame.pointer.pointee
        return PicturePlanes(data: [frame.data.0, frame.data.1, frame.data.2],
                             lineSizes: [frame.linesize.0, frame.linesize.1, frame.linesize.2],
                             isFullRange: frame.color_range == AVCOL_RANGE_JPEG || format.pixelFormat.avValue == AV_PIX_FMT_YUVJ420P,
                             isBT709: frame.colorspace == AVCOL_SPC_BT709)
    }
}
