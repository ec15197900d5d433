internal import CFFmpeg
import Testing
@testable import AVPipeline

/// The pool must hand out frames FFmpeg itself would accept (every plane inside the buffer, no two
/// planes overlapping, writable), reuse buffers once they come back, and fall back to FFmpeg's own
/// allocation where one buffer cannot describe the frame (more planes than AVFrame.data holds).
@Suite struct AudioBufferPoolTests {
    static func format(_ sampleFormat: SampleFormat, channels: Int) -> AudioFormat {
        AudioFormat(sampleFormat: sampleFormat, sampleRate: 48_000, channelLayout: .default(channelCount: channels))
    }

    /// Byte ranges of each plane, checked against the buffers that own them.
    static func checkLayout(_ frame: Frame, _ format: AudioFormat, frameCount: Int) {
        let f = frame.pointer.pointee
        #expect(Int(f.nb_samples) == frameCount)
        #expect(frame.isWritable)
        let planes = format.sampleFormat.isPlanar ? format.channelCount : 1
        let planeBytes = frameCount * format.sampleFormat.bytesPerSample * (format.sampleFormat.isPlanar ? 1 : format.channelCount)
        var ranges: [Range<UInt>] = []
        for plane in 0..<planes {
            let start = UInt(bitPattern: f.extended_data[plane])
            ranges.append(start..<(start + UInt(planeBytes)))
        }
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        for (a, b) in zip(sorted, sorted.dropFirst()) { #expect(a.upperBound <= b.lowerBound, "planes overlap") }
        // Every plane lies inside one of the frame's buffers.
        var owners: [Range<UInt>] = []
        withUnsafeBytes(of: f.buf) { raw in
            for ref in raw.bindMemory(to: UnsafeMutablePointer<AVBufferRef>?.self) {
                guard let ref else { continue }
                let start = UInt(bitPattern: ref.pointee.data)
                owners.append(start..<(start + UInt(ref.pointee.size)))
            }
        }
        for i in 0..<Int(f.nb_extended_buf) {
            let ref = f.extended_buf[i]!
            let start = UInt(bitPattern: ref.pointee.data)
            owners.append(start..<(start + UInt(ref.pointee.size)))
        }
        for range in ranges {
            #expect(owners.contains { $0.lowerBound <= range.lowerBound && range.upperBound <= $0.upperBound },
                    "a plane lies outside the frame's buffers")
        }
    }

    @Test(arguments: [(SampleFormat.s16, 2), (.fltp, 2), (.fltp, 6), (.dblp, 8), (.s32, 12), (.fltp, 12)])
    func framesAreLaidOutLikeFFmpegs(sampleFormat: SampleFormat, channels: Int) throws {
        let format = Self.format(sampleFormat, channels: channels)
        let pool = AudioBufferPool(format: format)
        for frameCount in [1024, 1, 1000, 1024] {
            Self.checkLayout(try pool.frame(frameCount: frameCount), format, frameCount: frameCount)
        }
    }

    @Test func aReturnedBufferIsReused() throws {
        let pool = AudioBufferPool(format: Self.format(.fltp, channels: 2))
        var first: Frame? = try pool.frame(frameCount: 1024)
        let address = first!.pointer.pointee.data.0
        let second = try pool.frame(frameCount: 1024)
        #expect(second.pointer.pointee.data.0 != address, "a buffer still in use was handed out again")
        first = nil
        let third = try pool.frame(frameCount: 1024)
        #expect(third.pointer.pointee.data.0 == address, "the returned buffer was not reused")
        _ = (first, second)
    }

    @Test func framesOutliveTheirPool() throws {
        var pool: AudioBufferPool? = AudioBufferPool(format: Self.format(.s16, channels: 2))
        let frame = try pool!.frame(frameCount: 512)
        pool = nil
        // Still valid memory (ASan and valgrind would object otherwise); freed when the frame goes.
        let samples = UnsafeMutableRawPointer(frame.pointer.pointee.data.0!).assumingMemoryBound(to: Int16.self)
        for i in 0..<(512 * 2) { samples[i] = Int16(truncatingIfNeeded: i) }
        #expect(samples[1023] == 1023)
        _ = pool
    }
}
