internal import CFFmpeg

/// Owns one reading `AVIOContext`, opened by us rather than by `avformat_open_input`, so the input
/// can be probed and its demuxer checked against the `InputPolicy` before any demuxer runs (and so
/// an in-memory buffer reads exactly like a file). A file is closed with `avio_closep`; a memory
/// context frees its buffer and itself (`avio_context_free`) and releases its reader.
final class IOContext {
    let pointer: UnsafeMutablePointer<AVIOContext>
    /// Kept alive for the read/seek callbacks of a memory context; nil for a file.
    private let reader: MemoryReader?

    /// Opens `url` (always `file:…`) through the file protocol only.
    convenience init(fileURL url: String, path: String, interrupt: InterruptFlag?, options: [String: String]) throws(AVPipelineError) {
        try self.init(url: url, interrupt: interrupt, options: options) { rc, _ in InputContext.openError(rc, path: path) }
    }

    /// Opens `url` through the protocols `options["protocol_whitelist"]` names; `failure` turns a
    /// failed open (and the last error FFmpeg logged meanwhile) into the typed error.
    init(url: String, interrupt: InterruptFlag?, options: [String: String],
         failure: (Int32, String?) -> AVPipelineError) throws(AVPipelineError) {
        var interruptCallback = interrupt?.callback ?? AVIOInterruptCB(callback: nil, opaque: nil)
        var context: UnsafeMutablePointer<AVIOContext>? = nil
        // Options the protocol does not know stay in the dictionary; the open error matters more.
        let (outcome, logged) = FFmpegLog.explaining { () throws(AVPipelineError) in
            try withDictionary(options, rejectingUnused: false) { dictionary throws(AVPipelineError) in
                let rc = avio_open2(&context, url, avp_avio_flag_read(), &interruptCallback, dictionary)
                if rc < 0 { throw .ffmpeg(call: "avio_open2", code: rc, message: "") }
            }
        }
        if case .failure(let error) = outcome {
            if case .ffmpeg(_, let rc, _) = error { throw failure(rc, logged) }
            throw error
        }
        pointer = try allocated(context)
        reader = nil
    }

    /// Reads `bytes` (shared, never copied) through read/seek callbacks.
    init(bytes: [UInt8]) throws(AVPipelineError) {
        let reader = MemoryReader(bytes)
        let size: Int32 = 32_768
        let buffer = try allocated(av_malloc(Int(size)))
        let opaque = Unmanaged.passUnretained(reader).toOpaque()
        guard let context = avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), size, 0, opaque,
                                               MemoryReader.read, nil, MemoryReader.seek) else {
            av_free(buffer)
            throw .outOfMemory
        }
        pointer = context
        self.reader = reader
    }

    deinit {
        if reader == nil {
            var owned: UnsafeMutablePointer<AVIOContext>? = pointer
            avio_closep(&owned)
        } else {
            // The context may have replaced its buffer: free the one it holds now.
            av_freep(&pointer.pointee.buffer)
            var owned: UnsafeMutablePointer<AVIOContext>? = pointer
            avio_context_free(&owned)
        }
    }
}

/// The read position over an immutable byte array, for `IOContext(bytes:)`'s callbacks. Touched
/// only by the thread that drives its `AVIOContext`.
final class MemoryReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
        guard let opaque, let buffer, size > 0 else { return avp_error_einval() }
        let reader = Unmanaged<MemoryReader>.fromOpaque(opaque).takeUnretainedValue()
        let count = min(Int(size), reader.bytes.count - reader.position)
        guard count > 0 else { return avp_error_eof() }
        reader.bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + reader.position, count: count)
        }
        reader.position += count
        return Int32(count)
    }

    static let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
        guard let opaque else { return Int64(avp_error_einval()) }
        let reader = Unmanaged<MemoryReader>.fromOpaque(opaque).takeUnretainedValue()
        let count = Int64(reader.bytes.count)
        let mode = whence & ~avp_avseek_force()
        if mode == avp_avseek_size() { return count }
        let base: Int64
        switch mode {
        case avp_seek_set(): base = 0
        case avp_seek_cur(): base = Int64(reader.position)
        case avp_seek_end(): base = count
        default: return Int64(avp_error_einval())
        }
        let (target, overflow) = base.addingReportingOverflow(offset)
        guard !overflow, target >= 0, target <= count else { return Int64(avp_error_einval()) }
        reader.position = Int(target)
        return target
    }
}
