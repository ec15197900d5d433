internal import CFFmpeg

/// Owns one muxing `AVFormatContext` and its `AVIOContext` (freed with `avio_closep` +
/// `avformat_free_context`). Writes to the path it is given — a temporary file, see
/// `AtomicOutputFile`.
final class OutputContext {
    let pointer: UnsafeMutablePointer<AVFormatContext>
    let path: String
    private var ioOpen = false
    /// Between a written header and a written trailer: FFmpeg 5.1's `hls` muxer frees the buffer
    /// of its open segment only in its trailer (freeing the context leaks it), so an HLS stream that
    /// fails half-way still gets its trailer, written into a staging folder that is removed anyway.
    private var open = false
    /// The first write error of a file the muxer opened itself, and the options each such open
    /// gets (see `avp_track_io_errors`).
    private let ownFiles = UnsafeMutablePointer<AVPOwnFiles>.allocate(capacity: 1)

    /// `stream`: `path` is a `StreamOutput`, opened as ffmpeg opens it. `network`: `path` is a
    /// network address, opened through its own protocols only, every read and write bounded by
    /// the connection's timeout and interruptible by its flag.
    init(formatName: String, path: String, stream: Bool = false, network: NetworkConnection? = nil) throws(AVPipelineError) {
        self.path = path
        var context: UnsafeMutablePointer<AVFormatContext>? = nil
        let rc = avformat_alloc_output_context2(&context, nil, formatName, path)
        if rc < 0 || context == nil {
            ownFiles.deallocate()  // deinit does not run for an object not yet initialized
            throw .unsupportedFormat("FFmpeg has no '\(formatName)' muxer")
        }
        pointer = context!
        ownFiles.initialize(to: AVPOwnFiles(error: 0, options: nil))
        if let network { pointer.pointee.interrupt_callback = network.interrupt.callback }
        if (pointer.pointee.oformat.pointee.flags & avp_fmt_nofile()) != 0 {
            // An upload's every request gets the TLS checks, which hlsenc does not pass on.
            for (key, value) in network?.tlsOptions ?? [:] { av_dict_set(&ownFiles.pointee.options, key, value, 0) }
            avp_track_io_errors(pointer, ownFiles)
        } else if let network {
            var interrupt = network.interrupt.callback
            let (result, reason) = FFmpegLog.explaining { () throws(AVPipelineError) -> Int32 in
                try withDictionary(network.protocolOptions, rejectingUnused: false) { options in
                    avio_open2(&pointer.pointee.pb, path, avp_avio_flag_write(), &interrupt, options)
                }
            }
            let openRC = (try? result.get()) ?? avp_error_einval()
            if openRC < 0 {
                if network.interrupt.isRaised { throw .cancelled }
                throw .outputNotWritable(path: path, reason: network.describe(openRC, reason: reason))
            }
            ioOpen = true
        } else {
            // The file was just created empty (AtomicOutputFile), so opening it with O_TRUNC would
            // only make ext4 flush it to disk on close (its truncate-then-write heuristic), ~30 ms
            // per 100 MB. The explicit "file:" keeps a ':' in the name from reading as a protocol;
            // standard output is the one pipe. A stream output is opened with FFmpeg's defaults,
            // as ffmpeg opens it (a regular file behind /dev/stdout is truncated).
            let url = path == AtomicOutputFile.standardOutputURL ? path : "file:" + path
            let openRC = try withDictionary(stream ? [:] : ["truncate": "0"], rejectingUnused: false) { options in
                avio_open2(&pointer.pointee.pb, url, avp_avio_flag_write(), nil, options)
            }
            if openRC < 0 {
                // Fully initialized: deinit runs on this throw and frees the context (freeing it
                // here as well would free it twice).
                throw .outputNotWritable(path: path, reason: ffmpegErrorText(openRC))
            }
            ioOpen = true
        }
    }

    deinit {
        if open, String(cString: pointer.pointee.oformat.pointee.name) == "hls" { _ = av_write_trailer(pointer) }
        if ioOpen { avio_closep(&pointer.pointee.pb) }
        avformat_free_context(pointer)
        av_dict_free(&ownFiles.pointee.options)
        ownFiles.deallocate()
    }

    /// Whether the container wants codec extradata out of band (MP4) rather than in-band (ADTS).
    var wantsGlobalHeader: Bool { (pointer.pointee.oformat.pointee.flags & avp_fmt_globalheader()) != 0 }

    func addStream(parameters: CodecParameters, timeBase: Rational) throws(AVPipelineError) -> UnsafeMutablePointer<AVStream> {
        let stream = try allocated(avformat_new_stream(pointer, nil))
        try check(avcodec_parameters_copy(stream.pointee.codecpar, parameters.pointer), "avcodec_parameters_copy")
        if !takesCodecTag(of: parameters.pointer) { stream.pointee.codecpar.pointee.codec_tag = 0 }
        avp_codecpar_guess_channel_layout(stream.pointee.codecpar)
        stream.pointee.time_base = timeBase.avValue
        return stream
    }

    /// Whether the input's codec tag can go into this container as it is (HEVC's `hvc1` stays
    /// `hvc1` rather than becoming the muxer's default `hev1`), by ffmpeg's stream-copy rule: the
    /// muxer has no tag table, or its table maps the tag to this codec, or it has no tag for this
    /// codec at all. Any other tag would be written as it is and mislabel the stream (an AVI's
    /// `XVID` in an MP4), so the muxer then picks its own.
    private func takesCodecTag(of parameters: UnsafePointer<AVCodecParameters>) -> Bool {
        let tag = parameters.pointee.codec_tag, codec = parameters.pointee.codec_id
        guard tag != 0, let tables = pointer.pointee.oformat.pointee.codec_tag else { return true }
        var own: UInt32 = 0
        return av_codec_get_id(tables, tag) == codec || av_codec_get_tag2(tables, codec, &own) == 0
    }

    /// A stream for an attached file (Matroska's attachments): no packets, its bytes as extradata
    /// and its name and MIME type as tags, which the muxer writes into the header.
    func addAttachment(_ attachment: Attachment) throws(AVPipelineError) -> UnsafeMutablePointer<AVStream> {
        let stream = try allocated(avformat_new_stream(pointer, nil))
        let parameters = stream.pointee.codecpar!
        parameters.pointee.codec_type = AVMEDIA_TYPE_ATTACHMENT
        parameters.pointee.codec_id = attachment.codec?.avID ?? AV_CODEC_ID_NONE
        guard let bytes = av_mallocz(attachment.bytes.count + Int(avp_input_buffer_padding_size())) else { throw .outOfMemory }
        attachment.bytes.withUnsafeBytes { if let base = $0.baseAddress { memcpy(bytes, base, $0.count) } }
        parameters.pointee.extradata = bytes.assumingMemoryBound(to: UInt8.self)
        parameters.pointee.extradata_size = Int32(attachment.bytes.count)
        var tags = attachment.metadata
        tags["filename"] = attachment.filename
        if let mimeType = attachment.mimeType { tags["mimetype"] = mimeType }
        try setMetadata(tags, of: stream)
        return stream
    }

    /// A stream for an attached picture (`covr` in MP4/M4A): its one packet is written like any other.
    func addCoverArt(_ art: CoverArt) throws(AVPipelineError) -> UnsafeMutablePointer<AVStream> {
        let stream = try allocated(avformat_new_stream(pointer, nil))
        stream.pointee.codecpar.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        stream.pointee.codecpar.pointee.codec_id = art.codecID
        stream.pointee.codecpar.pointee.width = Int32(clamping: art.width)
        stream.pointee.codecpar.pointee.height = Int32(clamping: art.height)
        stream.pointee.disposition = AV_DISPOSITION_ATTACHED_PIC
        stream.pointee.time_base = AVRational(num: 1, den: 90_000)
        return stream
    }

    /// Sets the file's tags (`stream` nil) or a stream's. The muxer writes the ones its container
    /// has a place for (and names itself as the file's encoder), as with `ffmpeg -c copy`.
    func setMetadata(_ tags: [String: String], of stream: UnsafeMutablePointer<AVStream>? = nil) throws(AVPipelineError) {
        for (key, value) in tags {
            if let stream {
                try check(av_dict_set(&stream.pointee.metadata, key, value, 0), "av_dict_set")
            } else {
                try check(av_dict_set(&pointer.pointee.metadata, key, value, 0), "av_dict_set")
            }
        }
    }

    /// Adds the file's chapters (before the header is written).
    func addChapters(_ chapters: [Chapter]) throws(AVPipelineError) {
        for (index, chapter) in chapters.enumerated() {
            let end = chapter.end.converted(to: chapter.start.timeBase)
            let added = try allocated(avp_add_chapter(pointer, Int64(index + 1), chapter.start.timeBase.avValue,
                                                      chapter.start.value, end.value))
            for (key, value) in chapter.metadata {
                try check(av_dict_set(&added.pointee.metadata, key, value, 0), "av_dict_set")
            }
        }
    }

    func writeHeader(options: [String: String] = [:]) throws(AVPipelineError) {
        let (result, reason) = FFmpegLog.explaining { () throws(AVPipelineError) in
            try withDictionary(options) { dictionary throws(AVPipelineError) in
                try check(avformat_write_header(pointer, dictionary), "avformat_write_header")
            }
        }
        if case .failure(let error) = result { throw refusal(error, reason: reason) }
        open = true
    }

    /// A muxer that cannot take its streams (a codec the container has no tag for, a combination
    /// FFmpeg calls experimental, a profile the format cannot signal) answers EINVAL, EXPERIMENTAL,
    /// PATCHWELCOME, ENOSYS (or INVALIDDATA with "not allowed") and says why only in its log: that is an unsupported format (exit 69)
    /// with FFmpeg's reason, not an internal failure.
    private func refusal(_ error: AVPipelineError, reason: String?) -> AVPipelineError {
        let refusals = [avp_error_einval(), avp_error_experimental(), avp_error_patchwelcome(), avp_error_enosys()]
        guard case .ffmpeg(_, let code, _) = error, var reason,
              // The adts muxer answers "invalid data" for an AAC it has no header fields for
              // (xHE-AAC, AAC-LD/ELD: "MPEG-4 AOT 42 is not allowed in ADTS").
              refusals.contains(code) || (code == avp_error_invaliddata() && reason.contains("not allowed")) else { return error }
        // FFmpeg's advice is for its own command line.
        if let advice = reason.firstRange(of: ", add '-strict") { reason = String(reason[..<advice.lowerBound]) }
        let muxer = String(cString: pointer.pointee.oformat.pointee.name)
        let experimental = code == avp_error_experimental() ? " (FFmpeg's experimental mode, which avpipe does not enable)" : ""
        return .unsupportedFormat("the \(muxer) muxer cannot write these streams: \(reason)\(experimental)")
    }

    /// Writes one packet directly (single-stream outputs need no interleaving queue).
    func write(_ packet: Packet) throws(AVPipelineError) {
        try check(av_write_frame(pointer, packet.pointer), "av_write_frame")
    }

    /// Writes one packet through libavformat's interleaving queue; takes the packet's reference.
    func writeInterleaved(_ packet: Packet) throws(AVPipelineError) {
        try check(av_interleaved_write_frame(pointer, packet.pointer), "av_interleaved_write_frame")
    }

    /// Closes the connection of an output given up on (a network output that broke), without a
    /// trailer: freeing the context then only frees memory.
    func closeConnection() {
        open = false
        if ioOpen {
            ioOpen = false
            avio_closep(&pointer.pointee.pb)
        }
    }

    /// Finishes the container and flushes and closes the file; reports a write error (disk full)
    /// that buffered I/O only shows at this point.
    func finish() throws(AVPipelineError) {
        open = false
        try check(av_write_trailer(pointer), "av_write_trailer")
        try check(ownFiles.pointee.error, "writing a segment")
        if ioOpen {
            ioOpen = false
            try check(avio_closep(&pointer.pointee.pb), "avio_closep")
        }
    }
}
