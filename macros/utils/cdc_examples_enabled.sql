{% macro cdc_examples_enabled() %}
    {#-
        Whether the example tables (models/silver/inventory, models/silver/shop and their
        gold models) are built: var `cdc_examples`, by default true where this project is
        the root project and false where a project installs it as a package.
    -#}
    {{ return(var('cdc_examples', project_name == 'cdc_lakehouse') | as_bool) }}
{% endmacro %}
