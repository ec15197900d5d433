internal import CFFmpeg

/// What a finished write produced.
public struct WriteSummary: Sendable {
    /// The file written.
    public let path: String
    /// Packets written.
    public let packets: Int
    /// Payload bytes written (without the container's own).
    public let bytes: Int
    /// Media time covered (end of the last packet), when packets carried timestamps.
    public let duration: MediaTime?
}

/// The shared engine of the one-track writers: a libavformat muxer writing into an
/// `AtomicOutputFile`. It takes packets, rescales their timestamps to the track's time base and
/// writes them; `finish()` completes the container and only then moves the file into place.
final class SingleStreamFileWriter {
    private let file: AtomicOutputFile
    private let context: OutputContext
    private let stream: UnsafeMutablePointer<AVStream>
    private let sourceTimeBase: Rational
    // Per-packet state, unchecked: one driver (see `SampleSource`).
    @exclusivity(unchecked) private var tally = StreamTally()

    /// `live`: a recording — written under its final name from the start and each packet handed
    /// to the OS at once, so a process killed outright leaves every packet written before it.
    convenience init(path: String, muxer: String, overwrite: Bool, parameters: CodecParameters, timeBase: Rational,
                     muxerOptions: [String: String] = [:], live: Bool = false) throws(AVPipelineError) {
        try self.init(file: AtomicOutputFile(path: path, overwrite: overwrite, inPlace: live), muxer: muxer, parameters: parameters,
                      timeBase: timeBase, muxerOptions: live ? muxerOptions.merging(["flush_packets": "1"]) { $1 } : muxerOptions)
    }

    /// Writes into `file`, made (and so checked) earlier: when the stream's parameters are only
    /// known once its first buffer has been produced.
    init(file: AtomicOutputFile, muxer: String, parameters: CodecParameters, timeBase: Rational,
         muxerOptions: [String: String] = [:], copiesSampleAspectRatio: Bool = false) throws(AVPipelineError) {
        let path = file.finalPath
        self.file = file
        context = try OutputContext(formatName: muxer, path: file.temporaryPath, stream: file.isStream)
        stream = try context.addStream(parameters: parameters, timeBase: timeBase)
        // Picture muxers (y4m) read the pixel shape from the stream, not its codec parameters.
        if copiesSampleAspectRatio { stream.pointee.sample_aspect_ratio = parameters.pointer.pointee.sample_aspect_ratio }
        sourceTimeBase = timeBase
        do {
            try context.writeHeader(options: muxerOptions)
        } catch {
            throw WriteFailure.describe(error, path: path)
        }
    }

    /// Writes one packet; the packet's payload reference is consumed.
    func write(_ packet: Packet) throws(AVPipelineError) {
        let p = packet.pointer
        StreamTally.place(p, from: sourceTimeBase.avValue, on: stream)
        _ = tally.count(p, size: packet.size, timeBase: stream.pointee.time_base)
        do {
            try context.write(packet)
        } catch {
            throw WriteFailure.describe(error, path: file.finalPath)
        }
        packet.unref()
    }

    var position: MediaTime? { tally.end }

    func finish() throws(AVPipelineError) -> WriteSummary {
        do {
            try context.finish()
        } catch {
            throw WriteFailure.describe(error, path: file.finalPath)
        }
        try file.commit()
        return WriteSummary(path: file.finalPath, packets: tally.packets, bytes: tally.bytes, duration: tally.end)
    }
}

/// An encoded buffer backed by one `AVPacket`: what the one-track writers can write.
protocol PacketBacked: SampleBuffer {
    var packet: Packet { get }
}

extension EncodedPacket: PacketBacked {}

/// Pulls every packet from `upstream` into `writer`, reporting progress after each one.
func drain<Upstream: SampleSource>(
    _ upstream: Upstream, into writer: SingleStreamFileWriter, progress: ((MediaTime) -> Void)?
) async throws -> WriteSummary where Upstream.Buffer: PacketBacked {
    if let immediate = upstream.immediatePackets {
        // Each written packet's owner, left blank by the writer, receives the next one.
        var blank: Packet?
        while let pulled = try immediate.nextPacketImmediately(reusing: blank.take()) {
            try writer.write(pulled.packet)
            if let progress, let position = writer.position { progress(position) }
            blank = pulled.packet
        }
    } else {
        while let buffer = try await upstream.next() {
            try writer.write(buffer.packet)
            if let progress, let position = writer.position { progress(position) }
        }
    }
    try checkCancellation()
    return try writer.finish()
}
