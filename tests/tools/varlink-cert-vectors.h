/* SPDX-License-Identifier: MIT */
/*
 * org.varlink.certification's values, shared by our certification server and
 * client (compared with json_values_match(), so null and absent are the same).
 */
#pragma once

/*
 * The reply of TestNN, which is also the input (besides client_id) that
 * Test(NN+1) must get back.  Test10 streams STREAM_REPLIES strings instead.
 */
static const char *const cert_reply_json[] = {
	[1] = "{\"bool\":true}",
	[2] = "{\"int\":1}",
	[3] = "{\"float\":1.0}",
	[4] = "{\"string\":\"ping\"}",
	[5] = "{\"bool\":false,\"int\":2,\"float\":3.141592653589793,\"string\":\"a lot of string\"}",
	[6] = "{\"struct\":{\"bool\":false,\"int\":2,\"float\":3.141592653589793,"
	      "\"string\":\"a lot of string\"}}",
	[7] = "{\"map\":{\"bar\":\"Bar\",\"foo\":\"Foo\"}}",
	[8] = "{\"set\":{\"one\":{},\"two\":{},\"three\":{}}}",
	[9] = "{\"mytype\":{"
	      "\"object\":{\"method\":\"org.varlink.certification.Test09\","
	      "\"parameters\":{\"map\":{\"foo\":\"Foo\",\"bar\":\"Bar\"}}},"
	      "\"enum\":\"two\","
	      "\"struct\":{\"first\":1,\"second\":\"2\"},"
	      "\"array\":[\"one\",\"two\",\"three\"],"
	      "\"dictionary\":{\"foo\":\"Foo\",\"bar\":\"Bar\"},"
	      "\"stringset\":{\"one\":{},\"two\":{},\"three\":{}},"
	      "\"nullable\":null,"
	      "\"nullable_array_struct\":null,"
	      "\"interface\":{"
	      "\"foo\":[null,{\"Foo\":\"foo\",\"Bar\":\"bar\"},null,{\"one\":\"foo\",\"two\":\"bar\"}],"
	      "\"anon\":{\"foo\":true,\"bar\":false}}}}",
};
