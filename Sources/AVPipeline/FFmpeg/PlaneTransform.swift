internal import CFFmpeg

/// Turns a picture upright: rotates it clockwise by 90, 180 or 270 degrees, then mirrors it
/// left-right when asked (a display matrix that transposes is 90° and a mirror), by moving whole
/// samples between planes (no filtering, so no pixel
/// changes): what ffmpeg's autorotate does with its `transpose`/`hflip`/`vflip` filters.
/// Works on every format whose planes hold fixed-size samples (planar YUV and RGB, NV12's
/// interleaved chroma, packed RGB); bitstream and palette formats are refused.
enum PlaneTransform {
    static func upright(_ frame: UnsafePointer<AVFrame>, rotation: Int, mirrored: Bool) throws(AVPipelineError) -> Frame {
        let format = AVPixelFormat(rawValue: frame.pointee.format)
        guard let descriptor = av_pix_fmt_desc_get(format),
              descriptor.pointee.flags & UInt64(AV_PIX_FMT_FLAG_BITSTREAM | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_HWACCEL) == 0 else {
            throw .unsupportedFormat("cannot turn \(PixelFormat(format)) pictures upright")
        }
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let swaps = rotation == 90 || rotation == 270
        let output = try Frame()
        let o = output.pointer
        o.pointee.format = frame.pointee.format
        o.pointee.width = Int32(swaps ? height : width)
        o.pointee.height = Int32(swaps ? width : height)
        try check(av_frame_get_buffer(o, 0), "av_frame_get_buffer")
        try check(av_frame_copy_props(o, frame), "av_frame_copy_props")
        if swaps {
            let sar = frame.pointee.sample_aspect_ratio
            o.pointee.sample_aspect_ratio = AVRational(num: sar.den, den: sar.num)
        }

        let d = descriptor.pointee
        let components = [d.comp.0, d.comp.1, d.comp.2, d.comp.3].prefix(Int(d.nb_components))
        for plane in 0..<Int(av_pix_fmt_count_planes(format)) {
            guard let component = components.first(where: { Int($0.plane) == plane }) else { continue }
            let sampleSize = Int(component.step)  // bytes from one sample of this plane to the next
            let isChroma = (plane == 1 || plane == 2) && (d.flags & UInt64(AV_PIX_FMT_FLAG_RGB)) == 0
            let columns = isChroma ? -((-width) >> Int(d.log2_chroma_w)) : width
            let rows = isChroma ? -((-height) >> Int(d.log2_chroma_h)) : height
            let source = planeBytes(frame.pointee, plane), target = planeBytes(o.pointee, plane)
            let targetColumns = swaps ? rows : columns
            /// Where sample (x, y) of the source goes, in bytes from the target plane's start.
            func offset(_ x: Int, _ y: Int) -> Int {
                var (tx, ty): (Int, Int) = switch rotation {
                case 90: (rows - 1 - y, x)
                case 180: (columns - 1 - x, rows - 1 - y)
                case 270: (y, columns - 1 - x)
                default: (x, y)
                }
                if mirrored { tx = targetColumns - 1 - tx }
                return ty * target.stride + tx * sampleSize
            }
            // Along a source row the target moves by a fixed step (a sample across, or a row up or
            // down): one walk per row, whole samples copied by width (a phone picture is millions).
            for y in 0..<rows {
                let start = offset(0, y), step = offset(1, y) - start
                let from = UnsafeRawPointer(source.base + y * source.stride), to = UnsafeMutableRawPointer(target.base + start)
                // Typed loops where the samples are 1, 2 or 4 bytes (every planar and NV12 layout):
                // several times faster than a copy call per sample, in debug builds too.
                switch sampleSize {
                case 1: Self.walk8(columns, from, to, step)
                case 2 where step % 2 == 0: Self.walk16(columns, from, to, step / 2)
                case 4 where step % 4 == 0: Self.walk32(columns, from, to, step / 4)
                default:
                    for x in 0..<columns {
                        (to + x * step).copyMemory(from: from + x * sampleSize, byteCount: sampleSize)
                    }
                }
            }
        }
        return output
    }

    /// Copy `count` consecutive samples at `from` to places `step` samples apart at `to` (planes
    /// and strides from `av_frame_get_buffer` are aligned, so are the samples).
    private static func walk8(_ count: Int, _ from: UnsafeRawPointer, _ to: UnsafeMutableRawPointer, _ step: Int) {
        let a = from.assumingMemoryBound(to: UInt8.self), b = to.assumingMemoryBound(to: UInt8.self)
        var t = 0
        for x in 0..<count { b[t] = a[x]; t += step }
    }

    private static func walk16(_ count: Int, _ from: UnsafeRawPointer, _ to: UnsafeMutableRawPointer, _ step: Int) {
        let a = from.assumingMemoryBound(to: UInt16.self), b = to.assumingMemoryBound(to: UInt16.self)
        var t = 0
        for x in 0..<count { b[t] = a[x]; t += step }
    }

    private static func walk32(_ count: Int, _ from: UnsafeRawPointer, _ to: UnsafeMutableRawPointer, _ step: Int) {
        let a = from.assumingMemoryBound(to: UInt32.self), b = to.assumingMemoryBound(to: UInt32.self)
        var t = 0
        for x in 0..<count { b[t] = a[x]; t += step }
    }

    private static func planeBytes(_ frame: AVFrame, _ index: Int) -> (base: UnsafeMutablePointer<UInt8>, stride: Int) {
        let base = withUnsafePointer(to: frame.data) {
            $0.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { $0[index]! }
        }
        let stride = withUnsafePointer(to: frame.linesize) {
            $0.withMemoryRebound(to: Int32.self, capacity: 8) { Int($0[index]) }
        }
        return (base, stride)
    }
}
