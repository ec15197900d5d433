import AVPipeline
import Dispatch

/// Arbitrary bytes through the library's public input path, exactly as a file would go: custom
/// AVIO over the bytes (no temporary file), container recognition and policy checks, probing, then
/// every audio track pulled to its end twice — as packets, and decoded to PCM and resampled to s16 as
/// `avpipe decode` does — and every video track (through the Annex B converter when it is
/// H.264/H.265). Reads stop after `packetLimit` buffers per track so one input cannot run for long.
enum DemuxHarness {
    static let packetLimit = 2_000

    static func run(_ bytes: [UInt8]) {
        let done = DispatchSemaphore(value: 0)
        // libFuzzer calls on its own thread; the pipeline is async, so run it as a task and wait.
        Task {
            await demux(bytes)
            done.signal()
        }
        done.wait()
    }

    static func demux(_ bytes: [UInt8]) async {
        do {
            let demuxer = try Demuxer(bytes: bytes, name: "fuzz-input")
            _ = demuxer.info.tracks.map { "\($0)" }
            for index in demuxer.info.audioTracks.indices {
                try await drain(try demuxer.audioTrack(index))
                try await drain(try demuxer.audioTrack(index).decodeAudio().resampled(to: AudioFormatRequest(sampleFormat: .s16)))
            }
            for index in demuxer.info.videoTracks.indices {
                let track = try demuxer.videoTrack(index)
                switch track.info.codec {
                case .h264: try await drain(try track.requiring(H264.self).annexB())
                case .hevc: try await drain(try track.requiring(HEVC.self).annexB())
                default: try await drain(track)
                }
            }
        } catch let error as AVPipelineError {
            let text = error.description
            if text.isEmpty || text.contains("\n") { finding("error text is not one line: \(text)") }
        } catch {
            finding("untyped error \(type(of: error)): \(error)")
        }
    }

    static func drain<S: SampleSource>(_ source: S) async throws {
        var packets = 0
        while let buffer = try await source.next() {
            _ = buffer.presentationTime
            packets += 1
            if packets >= packetLimit { return }
        }
    }
}
