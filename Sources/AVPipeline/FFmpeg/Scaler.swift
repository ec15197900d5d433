internal import CFFmpeg

/// Owns one `SwsContext` converting pictures of one size and pixel format to another, with the
/// scaler flags ffmpeg's filter graph uses by default (bicubic) and the source's colour matrix and
/// range, so the result matches `ffmpeg -vf scale=…`.
final class Scaler {
    let pointer: OpaquePointer
    let source: (format: PixelFormat, width: Int, height: Int)
    let target: (format: PixelFormat, width: Int, height: Int)

    init(from source: (format: PixelFormat, width: Int, height: Int),
         to target: (format: PixelFormat, width: Int, height: Int),
         colorSpace: AVColorSpace, sourceRange: AVColorRange) throws(AVPipelineError) {
        self.source = source
        self.target = target
        guard let context = sws_getContext(Int32(source.width), Int32(source.height), source.format.avValue,
                                           Int32(target.width), Int32(target.height), target.format.avValue,
                                           Int32(SWS_BICUBIC), nil, nil, nil) else {
            throw .unsupportedFormat("cannot convert \(source.format) \(source.width)x\(source.height) to \(target.format) \(target.width)x\(target.height)")
        }
        pointer = context
        // What vf_scale sets from the frame: its matrix (BT.601 when unstated) and its range.
        let matrix = colorSpace == AVCOL_SPC_UNSPECIFIED ? SWS_CS_DEFAULT : Int32(colorSpace.rawValue)
        let coefficients = sws_getCoefficients(matrix)
        var inverse: UnsafeMutablePointer<Int32>? = nil, table: UnsafeMutablePointer<Int32>? = nil
        var sourceFull: Int32 = 0, targetFull: Int32 = 0, brightness: Int32 = 0, contrast: Int32 = 0, saturation: Int32 = 0
        if sws_getColorspaceDetails(context, &inverse, &sourceFull, &table, &targetFull, &brightness, &contrast, &saturation) >= 0 {
            if sourceRange != AVCOL_RANGE_UNSPECIFIED { sourceFull = sourceRange == AVCOL_RANGE_JPEG ? 1 : 0 }
            _ = sws_setColorspaceDetails(context, coefficients, sourceFull, coefficients, targetFull, brightness, contrast, saturation)
        }
    }

    deinit { sws_freeContext(pointer) }

    /// Converts `frame` into a new frame of the target format and size (timestamps carried over).
    func convert(_ frame: UnsafePointer<AVFrame>) throws(AVPipelineError) -> Frame {
        let output = try Frame(picture: target.format, width: target.width, height: target.height)
        let o = output.pointer
        try check(av_frame_copy_props(o, frame), "av_frame_copy_props")
        let rows = withUnsafePointer(to: frame.pointee.data) { source in
            withUnsafePointer(to: frame.pointee.linesize) { sourceStrides in
                withUnsafeMutablePointer(to: &o.pointee.data) { target in
                    withUnsafePointer(to: o.pointee.linesize) { targetStrides in
                        source.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { s in
                            target.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { t in
                                sws_scale(pointer, s, UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self), 0,
                                          frame.pointee.height, t, UnsafeRawPointer(targetStrides).assumingMemoryBound(to: Int32.self))
                            }
                        }
                    }
                }
            }
        }
        guard rows == Int32(target.height) else {
            throw .ffmpeg(call: "sws_scale", code: rows, message: "converted \(rows) of \(target.height) rows")
        }
        return output
    }
}
