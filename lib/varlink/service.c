/* SPDX-License-Identifier: MIT */
/* org.varlink.service: what every varlink service tells about itself. */
#include "lib/varlink/server-internal.h"

#include <errno.h>
#include <string.h>

static const char service_idl[] =
	"# The interface every varlink service provides: what the service is and\n"
	"# which interfaces it implements.\n"
	"interface org.varlink.service\n"
	"\n"
	"# Names the service and lists the interfaces it implements.\n"
	"method GetInfo() -> (\n"
	"  vendor: string,\n"
	"  product: string,\n"
	"  version: string,\n"
	"  url: string,\n"
	"  interfaces: []string\n"
	")\n"
	"\n"
	"# Returns the description of one interface, comments included.\n"
	"method GetInterfaceDescription(interface: string) -> (description: string)\n"
	"\n"
	"# The interface is not implemented by this service.\n"
	"error InterfaceNotFound (interface: string)\n"
	"\n"
	"# The method is not part of the interface.\n"
	"error MethodNotFound (method: string)\n"
	"\n"
	"# The method is described but the service does not implement it.\n"
	"error MethodNotImplemented (method: string)\n"
	"\n"
	"# A parameter is missing, unknown, of the wrong type or out of range.\n"
	"error InvalidParameter (parameter: string)\n"
	"\n"
	"# The caller may not call this method.\n"
	"error PermissionDenied ()\n"
	"\n"
	"# The method must be called with \"more\": true.\n"
	"error ExpectedMore ()\n";

static struct json_object *string_or_empty(const char *s)
{
	return json_object_new_string(s ? s : "");
}

static int get_info(struct varlink_call *call, struct json_object *params, void *userdata)
{
	struct varlink_server *server = userdata;
	struct json_object *reply = json_object_new_object();
	struct json_object *list = json_object_new_array();

	if (!reply || !list) {
		json_object_put(reply);
		json_object_put(list);
		return -ENOMEM;
	}
	json_object_object_add(reply, "vendor", string_or_empty(server->info.vendor));
	json_object_object_add(reply, "product", string_or_empty(server->info.product));
	json_object_object_add(reply, "version", string_or_empty(server->info.version));
	json_object_object_add(reply, "url", string_or_empty(server->info.url));
	for (size_t i = 0; i < server->n_interfaces; i++)
		json_object_array_add(list, json_object_new_string(server->interfaces[i].idl->name));
	json_object_object_add(reply, "interfaces", list);
	return varlink_call_reply(call, reply);
}

static int get_interface_description(struct varlink_call *call, struct json_object *params,
				     void *userdata)
{
	struct varlink_server *server = userdata;
	const char *name = json_object_get_string(json_object_object_get(params, "interface"));
	const struct varlink_interface *iface = varlink_server_find_interface(server, name);
	struct json_object *reply;

	if (!iface) {
		reply = json_object_new_object();
		json_object_object_add(reply, "interface", json_object_new_string(name));
		return varlink_call_error(call, VARLINK_ERROR_INTERFACE_NOT_FOUND, reply);
	}
	reply = json_object_new_object();
	json_object_object_add(reply, "description", json_object_new_string(iface->text));
	return varlink_call_reply(call, reply);
}

static const struct varlink_method service_methods[] = {
	/* Introspection tells what the socket serves, to whoever may connect. */
	{ "GetInfo", get_info, VARLINK_METHOD_PUBLIC },
	{ "GetInterfaceDescription", get_interface_description, VARLINK_METHOD_PUBLIC },
	{ NULL, NULL, 0 },
};

int varlink_service_register(struct varlink_server *server)
{
	return varlink_server_add_interface(server, service_idl, service_methods, server);
}
