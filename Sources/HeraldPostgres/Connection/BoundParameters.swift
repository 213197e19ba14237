import CLibPQ

/// The bind parameters of one statement laid out as `PQexecParams` wants them: every value in
/// one buffer (text values NUL-terminated), with parallel arrays of types, lengths and formats.
struct BoundParameters {
    private var buffer: [UInt8] = []
    private var offsets: [Int?] = []
    private(set) var types: [Oid] = []
    private var lengths: [Int32] = []
    private var formats: [Int32] = []

    init(_ values: [PostgresValue]) throws {
        let count = values.count
        offsets.reserveCapacity(count)
        types.reserveCapacity(count)
        lengths.reserveCapacity(count)
        formats.reserveCapacity(count)
        buffer.reserveCapacity(values.reduce(0) { $0 + ($1.bytes?.count ?? 0) + 1 })
        for (position, value) in values.enumerated() {
            types.append(Oid(value.type.rawValue))
            formats.append(value.format.rawValue)
            guard let bytes = value.bytes else {
                offsets.append(nil)
                lengths.append(0)
                continue
            }
            // libpq reads a text value up to its first NUL: refuse rather than truncate silently.
            if value.format == .text, bytes.contains(0) {
                // The SQLSTATE the server gives the same refusal, so callers handle both alike.
                throw PostgresError(
                    kind: .misuse,
                    message: "bind parameter $\(position + 1) contains a NUL character, which PostgreSQL text cannot hold",
                    sqlState: PostgresError.Code.characterNotInRepertoire.rawValue)
            }
            guard bytes.count < Int32.max else {
                throw PostgresError(kind: .misuse, message: "bind parameter $\(position + 1) is larger than 2 GiB")
            }
            offsets.append(buffer.count)
            lengths.append(Int32(bytes.count))
            buffer.append(contentsOf: bytes)
            buffer.append(0)
        }
    }

    /// Calls `body` with the four arrays; the pointers are valid only during the call.
    func withPointers<R>(
        _ body: (UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        buffer.withUnsafeBufferPointer { bufferPointer in
            let base = bufferPointer.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { base?.advanced(by: $0) } }
            return types.withUnsafeBufferPointer { typePointer in
                values.withUnsafeBufferPointer { valuePointer in
                    lengths.withUnsafeBufferPointer { lengthPointer in
                        formats.withUnsafeBufferPointer { formatPointer in
                            body(typePointer.baseAddress, valuePointer.baseAddress,
                                 lengthPointer.baseAddress, formatPointer.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
