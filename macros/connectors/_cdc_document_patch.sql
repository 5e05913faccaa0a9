{% macro _cdc_document_patch(patch_json) %}
    {#- `_cdc_patch` JSON text parsed: the oplog `patch` text and the change-stream `update_description`. -#}
    from_json(
        {{ patch_json }},
        'struct<patch: string, update_description: struct<removedFields: array<string>, '
        || 'updatedFields: string, truncatedArrays: array<struct<field: string, size: string>>>, id: string>'
    )
{% endmacro %}
