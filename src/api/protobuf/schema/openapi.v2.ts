/**
 * The `openapi.v2` messages of the protobuf OpenAPI v2 document (`google/gnostic` `openapiv2/OpenAPIv2.proto`,
 * which kubectl decodes `/openapi/v2` with): the subset a document of paths and schema definitions uses, with
 * upstream's field numbers. Vendor extensions (`x-kubernetes-…`) travel as YAML text in `Any.yaml`.
 */
export const proto = `
syntax = "proto3";
package openapi.v2;

message AdditionalPropertiesItem {
  oneof oneof {
    Schema schema = 1;
    bool boolean = 2;
  }
}

message Any {
  string yaml = 2;
}

message ApiKeySecurity {
  string type = 1;
  string name = 2;
  string in = 3;
  string description = 4;
}

message BodyParameter {
  string description = 1;
  string name = 2;
  string in = 3;
  bool required = 4;
  Schema schema = 5;
}

message Definitions { repeated NamedSchema additional_properties = 1; }

message Document {
  string swagger = 1;
  Info info = 2;
  Paths paths = 8;
  Definitions definitions = 9;
  repeated SecurityRequirement security = 12;
  SecurityDefinitions security_definitions = 13;
}

message Info {
  string title = 1;
  string version = 2;
}

message ItemsItem { repeated Schema schema = 1; }

message NamedAny {
  string name = 1;
  Any value = 2;
}

message NamedPathItem {
  string name = 1;
  PathItem value = 2;
}

message NamedResponseValue {
  string name = 1;
  ResponseValue value = 2;
}

message NamedSchema {
  string name = 1;
  Schema value = 2;
}

message NamedSecurityDefinitionsItem {
  string name = 1;
  SecurityDefinitionsItem value = 2;
}

message NamedStringArray {
  string name = 1;
  StringArray value = 2;
}

message NonBodyParameter {
  oneof oneof {
    QueryParameterSubSchema query_parameter_sub_schema = 3;
    PathParameterSubSchema path_parameter_sub_schema = 4;
  }
}

message Operation {
  repeated string tags = 1;
  string description = 3;
  string operation_id = 5;
  repeated string produces = 6;
  repeated string consumes = 7;
  repeated ParametersItem parameters = 8;
  Responses responses = 9;
  repeated string schemes = 10;
  repeated NamedAny vendor_extension = 13;
}

message Parameter {
  oneof oneof {
    BodyParameter body_parameter = 1;
    NonBodyParameter non_body_parameter = 2;
  }
}

message ParametersItem {
  oneof oneof {
    Parameter parameter = 1;
  }
}

message PathItem {
  Operation get = 2;
  Operation put = 3;
  Operation post = 4;
  Operation delete = 5;
  Operation patch = 8;
  repeated ParametersItem parameters = 9;
}

message PathParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
  string type = 5;
  bool unique_items = 19;
}

message Paths {
  repeated NamedPathItem path = 2;
}

message Properties { repeated NamedSchema additional_properties = 1; }

message QueryParameterSubSchema {
  bool required = 1;
  string in = 2;
  string description = 3;
  string name = 4;
  string type = 6;
  bool unique_items = 20;
}

message Response {
  string description = 1;
  SchemaItem schema = 2;
}

message ResponseValue {
  oneof oneof {
    Response response = 1;
  }
}

message Responses {
  repeated NamedResponseValue response_code = 1;
}

message Schema {
  string _ref = 1;
  string format = 2;
  string description = 4;
  repeated string required = 19;
  AdditionalPropertiesItem additional_properties = 21;
  TypeItem type = 22;
  ItemsItem items = 23;
  repeated Schema all_of = 24;
  Properties properties = 25;
  repeated NamedAny vendor_extension = 31;
}

message SchemaItem {
  oneof oneof {
    Schema schema = 1;
  }
}

message SecurityDefinitions {
  repeated NamedSecurityDefinitionsItem additional_properties = 1;
}

message SecurityDefinitionsItem {
  oneof oneof {
    ApiKeySecurity api_key_security = 2;
  }
}

message SecurityRequirement {
  repeated NamedStringArray additional_properties = 1;
}

message StringArray { repeated string value = 1; }

message TypeItem { repeated string value = 1; }
`
