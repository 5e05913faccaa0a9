{% macro _cdc_unavailable_value_forms(placeholder) %}
    {#- Every form Debezium gives its unavailable-value placeholder, as [{text, json}]. -#}
    {%- set text = placeholder | string -%}
    {%- set data = text.encode('utf-8') | list -%}
    {%- set encoded = cdc_lakehouse._cdc_base64_text(data) -%}
    {%- set digest = local_md5(text) -%}
    {%- set variant = '89ab'[(digest[16] | int(base=16)) % 4] -%}
    {%- set uuid = digest[0:8] ~ '-' ~ digest[8:12] ~ '-3' ~ digest[13:16] ~ '-' ~ variant
        ~ digest[17:20] ~ '-' ~ digest[20:32] -%}
    {%- set quoted = cdc_lakehouse._cdc_json_text(text) -%}
    {%- set integers = [] -%}
    {%- for byte in data -%}
        {%- do integers.append(byte if byte < 128 else byte - 256) -%}
    {%- endfor -%}
    {%- set hstore = '{' ~ quoted ~ ':' ~ quoted ~ '}' -%}
    {%- set forms = [
        {'text': hstore, 'json': cdc_lakehouse._cdc_json_text(hstore)},
        {'text': hstore, 'json': hstore},
        {'text': '[' ~ quoted ~ ']', 'json': '[' ~ quoted ~ ']'},
        {'text': '["' ~ encoded ~ '"]', 'json': '["' ~ encoded ~ '"]'},
        {'text': '["' ~ uuid ~ '"]', 'json': '["' ~ uuid ~ '"]'},
        {'text': '[' ~ integers | join(',') ~ ']', 'json': '[' ~ integers | join(',') ~ ']'},
        {'text': encoded, 'json': '"' ~ encoded ~ '"'},
        {'text': text, 'json': quoted},
    ] -%}
    {{ return(forms) }}
{% endmacro %}

{% macro _cdc_unavailable_array_forms() %}
    {#- The array forms of the placeholder, as texts. -#}
    {%- set placeholder = cdc_lakehouse.cdc_var('cdc_unavailable_value_placeholder') -%}
    {%- if not placeholder -%}{{ return([]) }}{%- endif -%}
    {%- set arrays = [] -%}
    {%- for form in cdc_lakehouse._cdc_unavailable_value_forms(placeholder) if form.text.startswith('[') -%}
        {%- do arrays.append(form.text) -%}
    {%- endfor -%}
    {{ return(arrays) }}
{% endmacro %}

{% macro _cdc_json_text(text) %}
    {#- `text` as a JSON string literal, as Jackson writes it (quote, backslash and control characters escaped). -#}
    {%- set escaped = (text | string).replace('\\', '\\\\').replace('"', '\\"')
        .replace('\n', '\\n').replace('\r', '\\r').replace('\t', '\\t') -%}
    {{ return('"' ~ escaped ~ '"') }}
{% endmacro %}

{% macro _cdc_base64_text(data) %}
    {#- The base64 text (RFC 4648, padded) of a list of byte values (0-255). -#}
    {%- set alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/' -%}
    {%- set out = [] -%}
    {%- for start in range(0, data | length, 3) -%}
        {%- set chunk = data[start:start + 3] -%}
        {%- set padded = chunk + [0] * (3 - chunk | length) -%}
        {%- set triple = padded[0] * 65536 + padded[1] * 256 + padded[2] -%}
        {%- do out.append(alphabet[triple // 262144]) -%}
        {%- do out.append(alphabet[(triple // 4096) % 64]) -%}
        {%- do out.append(alphabet[(triple // 64) % 64] if chunk | length > 1 else '=') -%}
        {%- do out.append(alphabet[triple % 64] if chunk | length > 2 else '=') -%}
    {%- endfor -%}
    {{ return(out | join('')) }}
{% endmacro %}

{% macro _cdc_json_string(text) %}
    {#- `text` as a JSON string literal, escaped by Spark's own JSON writer (as the change log's images are). -#}
    substr(to_json(array({{ text }})), 2, length(to_json(array({{ text }}))) - 2)
{% endmacro %}
