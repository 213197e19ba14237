/// `JSON` as a Codable value, so a model that holds free-form JSON (an APNs payload, a web
/// notification) can still be Codable, and a type that knows its own JSON form can be Codable
/// through it. Objects decoded from a keyed container take that container's key order.
extension JSON: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var object = JSONObject()
            for key in keyed.allKeys {
                object[key.stringValue] = try keyed.decode(JSON.self, forKey: key)
            }
            self = .object(object)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var elements: [JSON] = []
            while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(JSON.self)) }
            self = .array(elements)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let bool = try? single.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? single.decode(Double.self) {
            self = .number(number)
        } else if let string = try? single.decode(String.self) {
            self = .string(string)
        } else {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .number(let value):
            var single = encoder.singleValueContainer()
            // Whole numbers encode as integers so that encoders print "1", not "1.0".
            if value.rounded() == value, abs(value) < 9_007_199_254_740_992 {
                try single.encode(Int64(value))
            } else {
                try single.encode(value)
            }
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var unkeyed = encoder.unkeyedContainer()
            for element in elements { try unkeyed.encode(element) }
        case .object(let object):
            var keyed = encoder.container(keyedBy: Key.self)
            for (key, value) in object { try keyed.encode(value, forKey: Key(stringValue: key)) }
        }
    }
}
